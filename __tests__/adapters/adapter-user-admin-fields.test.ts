// `AdapterUser` types the administration fields of the accounts spec (§6.1): `role: string | null`, `banned: boolean`,
// `banReason: string | null`, `banExpires: Date | null`, optional because an Auth.js adapter has none of them. An app
// reads them without a cast, and a value of the wrong type does not compile (`tsc --noEmit` checks this file).
import type { AdapterUser } from "../../lib/storage/adapter"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"

describe("AdapterUser administration fields", () => {
  it("round-trip through an adapter and read without casts", async () => {
    const adapter = MemoryAdapter()
    const until = new Date("2031-01-02T03:04:05.678Z")
    const created = await adapter.createUser({
      id: "u-1",
      email: "ada@example.test",
      emailVerified: null,
      role: "admin",
      banned: true,
      banReason: "spam",
      banExpires: until,
    })
    const read = (await adapter.getUser(created.id))!
    // Typed reads: these assignments compile only with the fields typed.
    const role: string | null | undefined = read.role
    const banned: boolean | undefined = read.banned
    const reason: string | null | undefined = read.banReason
    const expires: Date | null | undefined = read.banExpires
    expect({ role, banned, reason, expires: expires?.toISOString() }).toEqual({
      role: "admin",
      banned: true,
      reason: "spam",
      expires: until.toISOString(),
    })

    const cleared = await adapter.updateUser({ id: read.id, banned: false, banReason: null, banExpires: null })
    expect([cleared.banned, cleared.banReason, cleared.banExpires, cleared.role]).toEqual([false, null, null, "admin"])
  })

  it("refuses values of the wrong type at compile time", () => {
    const base: AdapterUser = { id: "u-2", email: null, emailVerified: null }
    // @ts-expect-error a role is a string or null
    const badRole: AdapterUser = { ...base, role: 7 }
    // @ts-expect-error `banned` is a boolean, not a flag string
    const badBanned: AdapterUser = { ...base, banned: "yes" }
    // @ts-expect-error the end of a ban is a Date, not epoch seconds
    const badExpires: AdapterUser = { ...base, banExpires: 1_900_000_000 }
    // At run time they are plain objects: the checks above are the compiler's.
    expect([badRole.role, badBanned.banned, badExpires.banExpires]).toEqual([7, "yes", 1_900_000_000])
  })
})

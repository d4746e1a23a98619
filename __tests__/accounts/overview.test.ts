// listAccounts' two-factor part (accounts.md §2.2): `twoFactor.enabled` is true exactly when the two-factor store holds
// a verified row for the user (two-factor.md: "2FA enabled" means `verifiedAt !== null`); false when two-factor
// sign-in is not configured. The admin's UserDetail shows the same. No secret or backup code is in any answer.
import request from "supertest"
import type { AdapterTwoFactor } from "../../lib/storage/adapter"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { cookieHeader, harness } from "./harness"

const row = (userId: string, verifiedAt: Date | null): AdapterTwoFactor => ({
  userId,
  secret: "gh1.sealed-totp-secret",
  verifiedAt,
  lastUsedStep: 0,
  backupCodes: ["backup-hash-1", "backup-hash-2"],
  version: 0,
  createdAt: new Date(),
  updatedAt: new Date(),
})

const overview = async (h: ReturnType<typeof harness>, jar: Record<string, string>) => {
  const res = await request(h.app).get("/auth/account").set("Cookie", cookieHeader(jar))
  expect(res.status).toBe(200)
  expect(res.text).not.toMatch(/sealed-totp-secret|backup-hash/)
  return res.body
}

describe("listAccounts twoFactor", () => {
  it("twoFactor.enabled follows the two-factor store: none, an enrolment in progress, verified, disabled", async () => {
    const adapter = MemoryAdapter()
    const h = harness({ features: { accountRoutes: true }, account: {}, twoFactor: {} }, adapter)
    await h.addUser({ id: "tia", email: "tia@example.com" })
    const jar = await h.signIn("tia")
    expect((await overview(h, jar)).twoFactor).toEqual({ enabled: false })
    await adapter.upsertTwoFactor(row("tia", null))
    expect((await overview(h, jar)).twoFactor).toEqual({ enabled: false })
    await adapter.upsertTwoFactor(row("tia", new Date()))
    const enabled = await overview(h, jar)
    expect(enabled.twoFactor).toEqual({ enabled: true })
    // A second factor is not a sign-in method: the count is unchanged.
    expect(enabled.methods).toBe(0)
    await adapter.deleteTwoFactor("tia")
    expect((await overview(h, jar)).twoFactor).toEqual({ enabled: false })
  })

  it("another user's verified row does not count", async () => {
    const adapter = MemoryAdapter()
    const h = harness({ features: { accountRoutes: true }, account: {}, twoFactor: {} }, adapter)
    await h.addUser({ id: "uma" })
    await h.addUser({ id: "vic" })
    await adapter.upsertTwoFactor(row("vic", new Date()))
    const jar = await h.signIn("uma")
    expect((await overview(h, jar)).twoFactor).toEqual({ enabled: false })
  })

  it("without the twoFactor option a stored verified row reads as not enabled", async () => {
    const adapter = MemoryAdapter()
    const h = harness({ features: { accountRoutes: true }, account: {} }, adapter)
    await h.addUser({ id: "wes" })
    const jar = await h.signIn("wes")
    await adapter.upsertTwoFactor(row("wes", new Date()))
    expect((await overview(h, jar)).twoFactor).toEqual({ enabled: false })
  })

  it("the admin's UserDetail shows twoFactorEnabled from the store", async () => {
    const adapter = MemoryAdapter()
    const h = harness({ features: { adminRoutes: true }, twoFactor: {} }, adapter)
    await h.addUser({ id: "root", role: "admin" })
    await h.addUser({ id: "xan" })
    await adapter.upsertTwoFactor(row("xan", new Date()))
    const jar = await h.signIn("root")
    const res = await request(h.app).get("/auth/admin/user?id=xan").set("Cookie", cookieHeader(jar))
    expect([res.status, res.body.twoFactorEnabled]).toEqual([200, true])
    expect(res.text).not.toMatch(/sealed-totp-secret|backup-hash/)
  })
})

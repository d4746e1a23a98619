// Passkey management through the optional routes (B12): list without secrets, ownership (a foreign id answers like a
// missing one), freshness for delete, the last-credential guard, CSRF on the POSTs.
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import type { Adapter } from "../../../lib/storage/adapter"
import type { AuthConfig } from "../../../lib/core/kernel/types"
import { fakeDateOnly } from "../../fixtures/clock"
import { Client, newAuthenticator, passkeyConfig, RP_ORIGIN } from "./harness"

async function json(response: Response): Promise<unknown> {
  return response.json()
}

/** A user signed up with one passkey (plus `extra` more), signed in on the returned client. */
async function member(config: AuthConfig, email: string, extra = 0) {
  const client = new Client(config)
  const authenticators = [newAuthenticator()]
  const first = await client.register(authenticators[0] as never, `email=${encodeURIComponent(email)}`)
  if (first.headers.get("location") !== RP_ORIGIN) throw new Error("sign-up failed")
  for (let i = 0; i < extra; i++) {
    const next = newAuthenticator()
    authenticators.push(next)
    await client.register(next)
  }
  return { client, authenticators }
}

function setup(adapter: Adapter = MemoryAdapter(), config: Partial<AuthConfig> = {}) {
  return passkeyConfig(adapter, { config: { features: { passkeyRoutes: true }, ...config } })
}

async function post(client: Client, op: "rename" | "delete", body: Record<string, string>, csrf = true) {
  const csrfToken = csrf ? await client.csrfToken() : undefined
  return client.request(`/auth/passkeys/${op}`, { body: { ...body, ...(csrfToken ? { csrfToken } : {}) } })
}

describe("passkey management routes (B12)", () => {
  it("lists the user's passkeys with no public key and no counter", async () => {
    const { config } = setup()
    const { client, authenticators } = await member(config, "a@example.com", 1)
    const response = await client.request("/auth/passkeys")
    expect(response.status).toBe(200)
    const list = (await json(response)) as Array<Record<string, unknown>>
    expect(list).toHaveLength(2)
    expect(list.map((p) => p.id).sort()).toEqual(authenticators.map((a) => a.id).sort())
    for (const item of list) {
      expect(Object.keys(item).sort()).toEqual(
        ["backedUp", "createdAt", "deviceType", "id", "lastUsedAt", "name", "transports"].sort(),
      )
      expect(item).toMatchObject({
        name: "Passkey",
        deviceType: "singleDevice",
        backedUp: false,
        transports: ["internal"],
      })
      expect(typeof item.createdAt).toBe("number")
    }
    expect(JSON.stringify(list)).not.toMatch(/publicKey|credentialPublicKey|counter/)
  })

  it("without a session the list is null", async () => {
    const { config } = setup()
    const response = await new Client(config).request("/auth/passkeys")
    expect(response.status).toBe(200)
    expect(await json(response)).toBeNull()
  })

  it("deleting another user's passkey answers 404 NotFound, exactly like a missing id, and keeps their row", async () => {
    const adapter = MemoryAdapter()
    const { config } = setup(adapter)
    const a = await member(config, "a@example.com", 1)
    const b = await member(config, "b@example.com")
    const foreign = await post(a.client, "delete", { id: (b.authenticators[0] as { id: string }).id })
    const missing = await post(a.client, "delete", { id: newAuthenticator().id })
    expect(foreign.status).toBe(404)
    expect(await json(foreign)).toEqual({ error: "NotFound" })
    expect(missing.status).toBe(404)
    expect(await json(missing)).toEqual({ error: "NotFound" })
    const bRow = (b.authenticators[0] as { credentialId: Buffer }).credentialId.toString("base64")
    expect(await adapter.getAuthenticator(bRow)).not.toBeNull()
    const renamed = await post(a.client, "rename", { id: (b.authenticators[0] as { id: string }).id, name: "mine" })
    expect(renamed.status).toBe(404)
    expect((await adapter.getAuthenticator(bRow))?.name).toBe("Passkey")
  })

  it("deleting with a 16-minute-old session answers 403 SessionNotFresh and deletes nothing", async () => {
    const adapter = MemoryAdapter()
    const { config } = setup(adapter)
    const start = Date.now()
    fakeDateOnly(start)
    try {
      const a = await member(config, "a@example.com", 1)
      jest.setSystemTime(start + 16 * 60_000)
      const response = await post(a.client, "delete", { id: (a.authenticators[0] as { id: string }).id })
      expect(response.status).toBe(403)
      expect(await json(response)).toEqual({ error: "SessionNotFresh" })
      expect(((await json(await a.client.request("/auth/passkeys"))) as unknown[]).length).toBe(2)
    } finally {
      jest.useRealTimers()
    }
  })

  it("a passkey-only user cannot delete their last credential: 409 LastCredential", async () => {
    const adapter = MemoryAdapter()
    const { config } = setup(adapter)
    const b = await member(config, "b@example.com")
    const response = await post(b.client, "delete", { id: (b.authenticators[0] as { id: string }).id })
    expect(response.status).toBe(409)
    expect(await json(response)).toEqual({ error: "LastCredential" })
    expect(((await json(await b.client.request("/auth/passkeys"))) as unknown[]).length).toBe(1)
  })

  it("accounts.md 2.4: a linked OAuth account counts as another way in, so the last passkey may go", async () => {
    const adapter = MemoryAdapter()
    const { config } = setup(adapter, { account: {} })
    const b = await member(config, "b2@example.com")
    const user = await adapter.getUserByEmail("b2@example.com")
    await adapter.linkAccount({ userId: user!.id, type: "oidc", provider: "idp", providerAccountId: "b2-sub" })
    const response = await post(b.client, "delete", { id: (b.authenticators[0] as { id: string }).id })
    expect(response.status).toBe(200)
    expect(((await json(await b.client.request("/auth/passkeys"))) as unknown[]).length).toBe(0)
  })

  it("a fresh session deletes one of two passkeys: the authenticator and its account row go", async () => {
    const adapter = MemoryAdapter()
    const { config } = setup(adapter)
    const a = await member(config, "a@example.com", 1)
    const target = a.authenticators[1] as { id: string; credentialId: Buffer }
    const response = await post(a.client, "delete", { id: target.id })
    expect(response.status).toBe(200)
    expect(await json(response)).toEqual({ ok: true })
    const credentialID = target.credentialId.toString("base64")
    await expect(adapter.getAuthenticator(credentialID)).resolves.toBeNull()
    await expect(adapter.getAccount(credentialID, "passkey")).resolves.toBeNull()
    // The deleted passkey no longer signs in.
    const signIn = await new Client(config).authenticate(target as never)
    expect(signIn.headers.get("location")).toBe(`${RP_ORIGIN}/auth/error?error=WebAuthnVerificationError`)
  })

  it("rename trims, limits to 64 characters, and shows in the list", async () => {
    const { config } = setup()
    const a = await member(config, "a@example.com")
    const id = (a.authenticators[0] as { id: string }).id
    expect((await post(a.client, "rename", { id, name: "  Work laptop  " })).status).toBe(200)
    const list = (await json(await a.client.request("/auth/passkeys"))) as Array<{ name: string }>
    expect(list[0]?.name).toBe("Work laptop")
    const tooLong = await post(a.client, "rename", { id, name: "x".repeat(65) })
    expect(tooLong.status).toBe(400)
    expect((await post(a.client, "rename", { id, name: "   " })).status).toBe(400)
  })

  it("the POST routes need the CSRF token: 403 MissingCSRF", async () => {
    const { config } = setup()
    const a = await member(config, "a@example.com", 1)
    const response = await post(a.client, "delete", { id: (a.authenticators[0] as { id: string }).id }, false)
    expect(response.status).toBe(403)
    expect(await json(response)).toEqual({ error: "MissingCSRF" })
  })

  it("the routes answer 400 Bad request unless features.passkeyRoutes is on", async () => {
    const { config } = passkeyConfig(MemoryAdapter())
    const a = await member(config, "a@example.com")
    const response = await a.client.request("/auth/passkeys")
    expect(response.status).toBe(400)
    expect(await json(response)).toBe("Bad request.")
  })

  it("with JWT sessions the list and freshness work from the token", async () => {
    const { config } = setup(MemoryAdapter(), { session: { strategy: "jwt" } })
    const a = await member(config, "jwt@example.com", 1)
    const list = (await json(await a.client.request("/auth/passkeys"))) as unknown[]
    expect(list).toHaveLength(2)
    const response = await post(a.client, "delete", { id: (a.authenticators[1] as { id: string }).id })
    expect(response.status).toBe(200)
  })
  it.each(["database", "jwt"] as const)(
    "deleting uses the one freshness rule (%s): fresh to the millisecond at freshAge, stale 1 ms later",
    async (strategy) => {
      const { config } = setup(MemoryAdapter(), { session: { strategy, freshAge: 60 } })
      const start = Math.floor(Date.now() / 1000) * 1000 + 400
      fakeDateOnly(start)
      try {
        const a = await member(config, "edge@example.com", 2)
        // The sign-in time is recorded in whole seconds (rounded down): freshness counts from there.
        const edge = Math.floor(start / 1000) * 1000 + 60_000
        jest.setSystemTime(edge)
        expect((await post(a.client, "delete", { id: (a.authenticators[2] as { id: string }).id })).status).toBe(200)
        jest.setSystemTime(edge + 1)
        const stale = await post(a.client, "delete", { id: (a.authenticators[1] as { id: string }).id })
        expect([stale.status, await json(stale)]).toEqual([403, { error: "SessionNotFresh" }])
      } finally {
        jest.useRealTimers()
      }
    },
  )

  it("a JWT session that records no sign-in time is not fresh: its iat (renewed on every re-issue) does not count", async () => {
    const { config } = setup(MemoryAdapter(), {
      session: { strategy: "jwt" },
      callbacks: { jwt: ({ token }) => ({ ...token, __gh: null }) },
    })
    const a = await member(config, "no-at@example.com", 1)
    // A session read re-issues the cookie through the callback, without the reserved claim (a fresh `iat`, no `at`).
    expect(await a.client.session()).toMatchObject({ user: { email: "no-at@example.com" } })
    const response = await post(a.client, "delete", { id: (a.authenticators[1] as { id: string }).id })
    expect([response.status, await json(response)]).toEqual([403, { error: "SessionNotFresh" }])
    expect(((await json(await a.client.request("/auth/passkeys"))) as unknown[]).length).toBe(2)
  })
})

// B.2 rule 10 / E.1.1: the passkey routes. webauthn-options (30 per 60 s per IP) answers 429 JSON; webauthn-verify
// (10 per 60 s per IP) refuses the callback before the credential lookup, the challenge and the verifier.
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import { Client, newAuthenticator, passkeyConfig, RP_ORIGIN, SESSION_COOKIE } from "../core/webauthn/harness"
import { fakeDateOnly } from "../fixtures/clock"

afterEach(() => jest.useRealTimers())

const START = Date.parse("2026-11-23T10:00:00Z")

function lookupCounting(adapter: ReturnType<typeof MemoryAdapter>) {
  const calls = { getAuthenticator: 0 }
  const getAuthenticator = adapter.getAuthenticator.bind(adapter)
  const wrapped: Adapter = {
    ...adapter,
    getAuthenticator: async (id: string) => {
      calls.getAuthenticator += 1
      return getAuthenticator(id)
    },
  }
  return { wrapped, calls }
}

describe("webauthn-verify", () => {
  it("the 11th callback in 60 s is refused unseen: no lookup, no verifier, the challenge is left unused", async () => {
    fakeDateOnly(START)
    const { wrapped, calls } = lookupCounting(MemoryAdapter())
    const { config, recorder } = passkeyConfig(wrapped, {
      config: { rateLimit: { enabled: true, ip: () => "192.0.2.1" } },
    })
    const client = new Client(config)
    const authenticator = newAuthenticator()
    const registered = await client.register(authenticator, "email=ada%40example.com")
    expect(registered.headers.get("location")).toBe(RP_ORIGIN)
    for (let i = 0; i < 9; i += 1) {
      expect((await client.authenticate(authenticator)).headers.get("location")).toBe(RP_ORIGIN)
    }
    expect(recorder.signIn).toBe(10)
    const lookups = calls.getAuthenticator

    delete client.cookies[SESSION_COOKIE]
    const refused = await client.authenticate(authenticator)
    expect(refused.status).toBe(302)
    expect(refused.headers.get("location")).toMatch(
      new RegExp(`^${RP_ORIGIN}/auth/signin\\?error=RateLimited&retry=\\d+$`),
    )
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect(refused.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`) && !/Max-Age=0/.test(c))).toBe(
      false,
    )
    expect(calls.getAuthenticator).toBe(lookups)
    expect(recorder.signIn).toBe(10)

    // A minute later the very same assertion still verifies: nothing of it was used while refused.
    jest.setSystemTime(START + 61_000)
    const replayed = await client.replay()
    expect(replayed.headers.get("location")).toBe(RP_ORIGIN)
    expect(recorder.signIn).toBe(11)
  })
})

describe("webauthn-options", () => {
  it('the 31st options request in 60 s answers 429 {"error":"RateLimited"} with Retry-After', async () => {
    fakeDateOnly(START)
    let ip = "192.0.2.2"
    const { config } = passkeyConfig(MemoryAdapter(), { config: { rateLimit: { enabled: true, ip: () => ip } } })
    const client = new Client(config)
    for (let i = 0; i < 30; i += 1) expect((await client.options("action=authenticate")).status).toBe(200)
    const refused = await client.options("action=authenticate")
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({ error: "RateLimited" })
    expect(refused.response.headers.get("retry-after")).toBe("60")
    expect(refused.response.headers.getSetCookie().some((c) => /challenge=[^;]/.test(c))).toBe(false)
    // Another client IP is not affected.
    ip = "192.0.2.3"
    expect((await client.options("action=authenticate")).status).toBe(200)
  })
})

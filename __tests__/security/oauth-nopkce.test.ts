// OI-code-injection-nopkce / OI-link-csrf-nopkce (issue 11): with the default `checks: ["pkce"]` and a server that
// ignores PKCE and does not advertise S256, an attacker's code sent to a victim with a pending flow must not sign the
// victim in as the attacker, nor link the attacker's identity to the victim. A one-time `state` is added.
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { Browser, ORIGIN, locationOf } from "../core/email/harness"
import { testLogger } from "../core/helpers"
import { startMisbehavingOp, type MisbehavingOp } from "../fixtures/oauth/misbehaving-op"
import Credentials from "../../lib/providers/credentials"

let op: MisbehavingOp
beforeAll(async () => {
  op = await startMisbehavingOp({ case: "pkce-unadvertised-ignored" })
})
afterAll(async () => op.close())
beforeEach(() => op.setCase("pkce-unadvertised-ignored"))

const SESSION_COOKIE = "__Secure-authjs.session-token"

function config(adapter?: ReturnType<typeof MemoryAdapter>): AuthConfig {
  return {
    secret: "nopkce-secret-0123456789abcdef0123456789abcdef",
    trustHost: true,
    logger: testLogger(),
    ...(adapter ? { adapter, session: { strategy: "jwt" as const } } : {}),
    providers: [
      {
        id: "evil",
        name: "OP without advertised PKCE",
        type: "oidc",
        issuer: op.issuer,
        clientId: op.clientId,
        clientSecret: op.clientSecret,
        allowInsecureRequests: true,
      },
      Credentials({ authorize: () => ({ id: "victim-1", email: "victim@example.test" }) }),
    ],
  }
}

async function start(browser: Browser): Promise<URL> {
  const csrfToken = await browser.csrfToken()
  return new URL(locationOf(await browser.fetch("/auth/signin/evil", { csrfToken })))
}

/** The attacker runs a flow in their own browser and stops at the callback: they now hold a fresh code. */
async function attackerCallbackQuery(cfg: AuthConfig): Promise<URLSearchParams> {
  const authorize = await start(new Browser(cfg))
  const response = await fetch(authorize, { redirect: "manual" })
  return new URL(response.headers.get("location") as string).searchParams
}

describe("OI-code-injection-nopkce", () => {
  it("the start adds a state when the server does not advertise S256", async () => {
    const authorize = await start(new Browser(config()))
    expect(authorize.searchParams.get("state")).toBeTruthy()
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256")
  })

  it("the attacker's code (with or without their state) in a victim's pending flow is refused", async () => {
    const cfg = config()
    const stolen = await attackerCallbackQuery(cfg)
    for (const query of [stolen, new URLSearchParams({ code: stolen.get("code")!, iss: op.issuer })]) {
      const victim = new Browser(cfg)
      await start(victim)
      const response = await victim.fetch(`/auth/callback/evil?${query}`)
      expect(locationOf(response)).toBe(`${ORIGIN}/auth/error?error=Configuration`)
      expect(victim.cookies[SESSION_COOKIE]).toBeUndefined()
    }
  })

  it("the victim's own flow still completes", async () => {
    const cfg = config()
    const victim = new Browser(cfg)
    const response = await fetch(await start(victim), { redirect: "manual" })
    const callback = new URL(response.headers.get("location") as string)
    expect(locationOf(await victim.fetch(`${callback.pathname}${callback.search}`))).toBe(ORIGIN)
    expect(victim.cookies[SESSION_COOKIE]).toBeDefined()
  })

  it("a server advertising S256 gets no extra state, and a stale state cookie does not break its callback", async () => {
    op.setCase("oidcc-client-test")
    const cfg = config()
    const browser = new Browser(cfg)
    browser.cookies["__Secure-authjs.state"] = "stale"
    const authorize = await start(browser)
    expect(authorize.searchParams.get("state")).toBeNull()
    expect(browser.cookies["__Secure-authjs.state"]).toBeUndefined()
    const callback = new URL((await fetch(authorize, { redirect: "manual" })).headers.get("location") as string)
    expect(locationOf(await browser.fetch(`${callback.pathname}${callback.search}`))).toBe(ORIGIN)
  })
})

describe("OI-link-csrf-nopkce", () => {
  it("a signed-in victim who receives the attacker's code gets no account linked", async () => {
    const adapter = MemoryAdapter()
    const cfg = config(adapter)
    await adapter.createUser({ id: "victim-1", email: "victim@example.test", emailVerified: new Date() })
    const victim = new Browser(cfg)
    const csrfToken = await victim.csrfToken()
    expect(locationOf(await victim.fetch("/auth/callback/credentials", { csrfToken }))).toBe(ORIGIN)
    await start(victim)
    const stolen = await attackerCallbackQuery(cfg)
    await victim.fetch(`/auth/callback/evil?${stolen}`)
    expect(await adapter.getUserByAccount({ provider: "evil", providerAccountId: op.sub })).toBeNull()
  })
})

// Issue 11: OI-aud-extra-azp (extra ID token audiences refused unless trusted) and OI-dangerous-linking (implicit
// email linking only on the boolean `email_verified: true`), through Auth() against the misbehaving OP.
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import type { OAuthConfig } from "../../lib/providers/types"
import { Browser, ORIGIN, locationOf } from "../core/email/harness"
import { testLogger } from "../core/helpers"
import { startMisbehavingOp, type MisbehavingOp, type MisbehaviorCase } from "../fixtures/oauth/misbehaving-op"

let op: MisbehavingOp
beforeAll(async () => {
  op = await startMisbehavingOp({ case: "oidcc-client-test" })
})
afterAll(async () => op.close())

const SESSION_COOKIE = "__Secure-authjs.session-token"
const EMAIL = "evil.user@example.test"

function config(extra: Partial<OAuthConfig> = {}, adapter = MemoryAdapter()): AuthConfig {
  return {
    secret: "identity-secret-0123456789abcdef0123456789abcdef",
    trustHost: true,
    logger: testLogger(),
    adapter,
    providers: [
      {
        id: "evil",
        name: "Evil OP",
        type: "oidc",
        issuer: op.issuer,
        clientId: op.clientId,
        clientSecret: op.clientSecret,
        allowInsecureRequests: true,
        ...extra,
      },
    ],
  }
}

async function signIn(c: MisbehaviorCase, cfg: AuthConfig): Promise<{ location: string; browser: Browser }> {
  op.setCase(c)
  const browser = new Browser(cfg)
  const csrfToken = await browser.csrfToken()
  const authorize = locationOf(await browser.fetch("/auth/signin/evil", { csrfToken }))
  const callback = new URL((await fetch(authorize, { redirect: "manual" })).headers.get("location") as string)
  const location = locationOf(await browser.fetch(`${callback.pathname}${callback.search}`))
  return { location, browser }
}

describe("OI-aud-extra-azp", () => {
  it("an ID token with aud [client, another-client] and azp client is refused", async () => {
    const { location, browser } = await signIn("idt-extra-aud-azp", config())
    expect(location).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(browser.cookies[SESSION_COOKIE]).toBeUndefined()
  })

  it("an audience the provider lists in trustedAudiences is accepted", async () => {
    const { location, browser } = await signIn("idt-extra-aud-azp", config({ trustedAudiences: ["another-client"] }))
    expect(location).toBe(ORIGIN)
    expect(browser.cookies[SESSION_COOKIE]).toBeDefined()
  })
})

describe("OI-dangerous-linking", () => {
  async function attempt(c: MisbehaviorCase, extra: Partial<OAuthConfig> = {}) {
    const adapter = MemoryAdapter()
    await adapter.createUser({ id: "owner", email: EMAIL, emailVerified: new Date() })
    const { location } = await signIn(c, config({ allowDangerousEmailAccountLinking: true, ...extra }, adapter))
    const linked = await adapter.getUserByAccount({ provider: "evil", providerAccountId: op.sub })
    return { location, linked }
  }

  it.each([
    ['email_verified: "false" (a string)', "email-verified-string-false"],
    ["no email_verified claim", "oidcc-client-test"],
  ] as const)("%s does not link", async (_label, c) => {
    const { location, linked } = await attempt(c)
    expect(location).toBe(`${ORIGIN}/auth/signin?error=OAuthAccountNotLinked`)
    expect(linked).toBeNull()
  })

  it("email_verified: true links", async () => {
    const { location, linked } = await attempt("email-verified-true")
    expect(location).toBe(ORIGIN)
    expect(linked?.id).toBe("owner")
  })

  it("a provider configured with emailAlwaysVerified links without the claim", async () => {
    const { location, linked } = await attempt("oidcc-client-test", { emailAlwaysVerified: true })
    expect(location).toBe(ORIGIN)
    expect(linked?.id).toBe("owner")
  })
})

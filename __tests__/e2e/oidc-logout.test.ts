// End to end: OIDC RP-initiated logout and back-channel logout (next-wave C.3) against a real oidc-provider that
// reaches the app over HTTP, with JWT sessions; the negative matrix (C8) against an "evil OP" that signs with its own key
// from its own JWKS. The rows that involve database sessions run on every adapter in oidc-logout-databases.test.ts.
import { SignJWT, type JWTPayload } from "jose"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { MemoryStore } from "../../lib/storage/memory/store"
import { startOidcProvider, testOidcProvider } from "../fixtures/oauth/oidc-provider"
import type { StartedOidcProvider } from "../fixtures/oauth/oidc-provider"
import { startMisbehavingOp, type MisbehavingOp } from "../fixtures/oauth/misbehaving-op"
import {
  BACKCHANNEL_EVENT as EVENT,
  Browser,
  endSessionElsewhere,
  logoutClaims,
  logoutForm as form,
  opToken,
  postLogoutToken,
  startLogoutApp,
  type LogoutApp,
  startLogoutOp,
} from "../fixtures/oidc-logout"

const SECRET = "oidc-logout-secret-0123456789abcdef0123456789abcdef"
let app: LogoutApp
let APP: string
let op: StartedOidcProvider
let bareOp: StartedOidcProvider
let evilOp: MisbehavingOp
let jwtConfig: AuthConfig
let dbConfig: AuthConfig
let adapter: ReturnType<typeof MemoryAdapter>
const store = MemoryStore()
const warnings: string[] = []
const backchannelErrors: unknown[] = []
const signOutEvents: Array<{ reason?: string }> = []

function makeConfig(extra: Partial<AuthConfig>): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    // One store for both strategies' configs, as instances of one app share it.
    store,
    logger: { error: () => undefined, warn: (code) => warnings.push(code), debug: () => undefined },
    events: { signOut: (message) => void signOutEvents.push(message as { reason?: string }) },
    providers: [
      testOidcProvider(op, "corp", {
        checks: ["pkce", "state", "nonce"],
        logout: { rpInitiated: true, backchannel: true },
      }),
      testOidcProvider(op, "plain", { checks: ["pkce", "state", "nonce"] }),
      testOidcProvider(bareOp, "bare", { checks: ["pkce", "state", "nonce"], logout: { rpInitiated: true } }),
      testOidcProvider(evilOp, "evil", { checks: ["pkce", "state", "nonce"], logout: { backchannel: true } }),
    ],
    ...extra,
  }
}

beforeAll(async () => {
  // The app listens first: the OP registers URLs on its origin.
  app = await startLogoutApp()
  APP = app.url
  op = await startLogoutOp(APP, backchannelErrors)
  bareOp = await startOidcProvider({
    redirectUris: [`${APP}/auth/callback/bare`],
    features: { rpInitiatedLogout: { enabled: false } },
  })
  evilOp = await startMisbehavingOp({ case: "oidcc-client-test" })
  adapter = MemoryAdapter()
  jwtConfig = makeConfig({})
  dbConfig = makeConfig({ adapter, session: { strategy: "database" } })
})
afterAll(async () => {
  await op.close()
  await bareOp.close()
  await evilOp.close()
  await app.close()
})
beforeEach(() => {
  warnings.length = 0
  backchannelErrors.length = 0
  signOutEvents.length = 0
})

describe("RP-initiated logout", () => {
  test("C2 a tampered state, or one sealed for another provider, lands on the app origin with one warning", async () => {
    app.use(jwtConfig)
    const browser = new Browser(app)
    await browser.signIn("corp", "dave")
    const location = new URL((await browser.signOut()).headers.get("location") as string)
    const state = location.searchParams.get("state") as string
    const tampered = `${state.slice(0, -4)}AAAA`
    const first = await browser.request(`/auth/signout-callback/corp?state=${tampered}`)
    expect(first.status).toBe(302)
    expect(first.headers.get("location")).toBe(APP)
    const foreign = await browser.request(`/auth/signout-callback/plain?state=${state}`)
    expect(foreign.status).toBe(302)
    expect(foreign.headers.get("location")).toBe(APP)
    expect(warnings.filter((w) => w === "signout-state-invalid")).toHaveLength(2)
  })

  test("C3 no end-session endpoint: local sign-out only, one warning across five sign-outs", async () => {
    app.use(jwtConfig)
    for (let i = 0; i < 5; i++) {
      const browser = new Browser(app)
      await browser.signIn("bare", `erin${i}`)
      const response = await browser.signOut()
      expect(response.status).toBe(302)
      expect(response.headers.get("location")).toBe(`${APP}/bye`)
      expect(browser.cookies.has("authjs.session-token")).toBe(false)
    }
    expect(warnings.filter((w) => w === "rp-initiated-logout-unavailable")).toHaveLength(1)
  })

  test("C4 X-Auth-Return-Redirect answers 200 {url} and clears the session cookie; federated=false stays local", async () => {
    app.use(jwtConfig)
    const browser = new Browser(app)
    await browser.signIn("corp", "frank")
    const response = await browser.signOut({}, { "X-Auth-Return-Redirect": "1" })
    expect(response.status).toBe(200)
    const { url } = (await response.json()) as { url: string }
    expect(url.startsWith(`${op.issuer}/session/end?`)).toBe(true)
    expect(new URL(url).searchParams.get("id_token_hint")).toMatch(/^ey/)
    expect(response.headers.getSetCookie().some((c) => /^authjs\.session-token=;.*Max-Age=0/i.test(c))).toBe(true)

    const local = new Browser(app)
    await local.signIn("corp", "frank")
    const plain = await local.signOut({ federated: "false" })
    expect(plain.headers.get("location")).toBe(`${APP}/bye`)
  })
})

describe("back-channel logout", () => {
  test("C5 jwt strategy: the session whose sid the OP ended reads as null and its cookie is cleared", async () => {
    app.use(jwtConfig)
    const s1 = new Browser(app)
    const s2 = new Browser(app)
    await s1.signIn("corp", "gina")
    await s2.signIn("corp", "gina")
    const next = await s1.confirmEndSession(endSessionElsewhere(op))
    expect(next).toBe("http://localhost:1/bye")
    expect(backchannelErrors).toEqual([])
    const read = await s1.request("/auth/session")
    expect(await read.json()).toBeNull()
    expect(read.headers.getSetCookie().some((c) => /^authjs\.session-token=;.*Max-Age=0/i.test(c))).toBe(true)
    expect(signOutEvents.filter((e) => e.reason === "backchannel")).toHaveLength(1)
    expect(await s2.session()).toMatchObject({ user: { name: "User gina" } })
  })

  test("C8 negative matrix (evil OP, own key and JWKS): every bad request or token is 400 and ends nothing", async () => {
    app.use(dbConfig)
    const victim = new Browser(app)
    await victim.signIn("evil")
    const sessionsOfVictim = async () => {
      const user = await adapter.getUserByAccount({ provider: "evil", providerAccountId: evilOp.sub })
      return user ? (await adapter.listSessionsByUserId(user.id)).filter((s) => s.provider === "evil").length : 0
    }
    expect(await sessionsOfVictim()).toBe(1)
    const corpVictim = new Browser(app)
    await corpVictim.signIn("corp", "hank")

    const good = () => logoutClaims(evilOp.issuer, evilOp.clientId, { sub: evilOp.sub })
    const sign = (claims: JWTPayload, header: Record<string, unknown> = { typ: "logout+jwt" }) =>
      evilOp.sign(claims, header)
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
    const unsigned = `${b64({ alg: "none", typ: "logout+jwt" })}.${b64(good())}.`
    const valid = await sign(good())
    const flipped = `${valid.slice(0, -6)}${valid.slice(-6, -5) === "A" ? "B" : "A"}${valid.slice(-5)}`
    const noEvents: JWTPayload = { ...good() }
    delete noEvents.events
    const now = Math.floor(Date.now() / 1000)
    const hs = await new SignJWT(good())
      .setProtectedHeader({ alg: "HS256", typ: "logout+jwt" })
      .sign(new TextEncoder().encode(evilOp.clientSecret))
    const idToken = (await adapter.getAccount(evilOp.sub, "evil"))?.id_token as string
    expect(idToken).toMatch(/^ey/)
    const bodies: Array<[string, string]> = [
      ["missing logout_token", ""],
      ["two logout_token fields", `${form(valid)}&${form(valid)}`],
      ["alg none", form(unsigned)],
      ["flipped signature", form(flipped)],
      ["iss with a slash", form(await sign({ ...good(), iss: `${evilOp.issuer}/` }))],
      ["aud another client", form(await sign({ ...good(), aud: "rp2" }))],
      ["aud with an extra", form(await sign({ ...good(), aud: [evilOp.clientId, "x"] }))],
      ["no events", form(await sign(noEvents))],
      ["events member not an object", form(await sign({ ...good(), events: { [EVENT]: "x" } }))],
      ["nonce", form(await sign({ ...good(), nonce: "n" }))],
      ["neither sub nor sid", form(await sign({ ...good(), sub: undefined }))],
      ["exp 2 min past", form(await sign({ ...good(), exp: now - 120 }))],
      ["iat 2 min ahead", form(await sign({ ...good(), iat: now + 120, exp: now + 240 }))],
      ["iat 11 min old", form(await sign({ ...good(), iat: now - 660, exp: now + 120 }))],
      ["typ JWT", form(await sign(good(), { typ: "JWT" }))],
      ["HS256 with the client secret", form(hs)],
      ["an ID token of the same OP", form(idToken)],
      // The evil OP's claims signed by another OP's key (the real one's kid is not in the evil OP's JWKS).
      ["signed by another OP's key", form(await opToken(op, good()))],
    ]
    for (const [name, body] of bodies) {
      const response = await postLogoutToken(app, "evil", body)
      expect({ name, status: response.status }).toEqual({ name, status: 400 })
      expect(response.headers.get("cache-control")).toBe("no-store")
      expect(((await response.json()) as { error: string }).error).toBe("invalid_request")
    }
    const wrongType = await postLogoutToken(app, "evil", JSON.stringify({ logout_token: valid }), "application/json")
    expect(wrongType.status).toBe(400)
    const notEnabled = await postLogoutToken(app, "plain", form(valid))
    expect(notEnabled.status).toBe(400)
    // A token of the evil OP never ends a session of another provider, even one naming that provider's user.
    const forCorp = await sign(logoutClaims(evilOp.issuer, "app", { sub: "hank" }))
    expect((await postLogoutToken(app, "corp", form(forCorp))).status).toBe(400)
    const corpClaims = await sign(logoutClaims(op.issuer, "app", { sub: "hank" }))
    expect((await postLogoutToken(app, "corp", form(corpClaims))).status).toBe(400)

    expect(await sessionsOfVictim()).toBe(1)
    expect(await victim.session()).toMatchObject({ user: { name: "Evil User" } })
    expect(await corpVictim.session()).toMatchObject({ user: { name: "User hank" } })
    expect(signOutEvents).toEqual([])

    // Control: the same OP's well-formed token is accepted and ends the victim's session (so every 400 above was the
    // claim under test, not the harness).
    const accepted = await postLogoutToken(app, "evil", form(valid))
    expect(accepted.status).toBe(200)
    expect(await sessionsOfVictim()).toBe(0)
    expect(await victim.session()).toBeNull()
    expect(await corpVictim.session()).toMatchObject({ user: { name: "User hank" } })
  })

  test("C10/C11 GET is refused without reading a body; a 20 KB body is refused", async () => {
    app.use(dbConfig)
    const get = await fetch(`${APP}/auth/backchannel-logout/corp`)
    expect(get.status).toBe(400)
    expect(get.headers.get("cache-control")).toBe("no-store")
    expect(((await get.json()) as { error: string }).error).toBe("invalid_request")
    const big = await postLogoutToken(app, "corp", `logout_token=${"a".repeat(20 * 1024)}`)
    expect(big.status).toBe(400)
    expect(((await big.json()) as { error_description: string }).error_description).toMatch(/too large/)
  })

  test("C.2 rule 2: a logout token never passes as an ID token", async () => {
    const { verifyIdToken } = await import("../../lib/oauth/id-token")
    const { normalizeOAuthProvider } = await import("../../lib/oauth")
    const provider = normalizeOAuthProvider(testOidcProvider(op, "corp"), {} as never)
    const as = { issuer: op.issuer, jwks_uri: `${op.issuer}/jwks`, id_token_signing_alg_values_supported: ["RS256"] }
    const claims = logoutClaims(op.issuer, op.clientId)
    await expect(verifyIdToken(provider, as, await opToken(op, claims))).rejects.toThrow(/ID token/)
    await expect(verifyIdToken(provider, as, await opToken(op, claims, { typ: "JWT" }))).rejects.toThrow()
  })
})

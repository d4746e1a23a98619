// What an impersonation session may not do (accounts.md §3.5, tokens.md §2): change or set the password, register a
// passkey (options or callback), link an OAuth account by signing in through the provider, or confirm a native-app
// sign-in. Each answers ImpersonationRestricted and changes nothing: no row, no session cookie, no audit event.
import { createHash, randomBytes } from "node:crypto"
import request from "supertest"
import Password from "../../lib/providers/password"
import { cookieHeader, cookieJar, harnessCredentials, postJson, settle } from "./harness"
import type { Harness } from "./harness"
import { impersonate, impersonationHarness, readSession, setCookieOf } from "../fixtures/impersonation"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import Passkey from "../../lib/providers/passkey"
import { newAuthenticator, RP_ID, RP_ORIGIN } from "../core/webauthn/harness"
import { driveAuthorization, startOidcProvider, testOidcProvider } from "../fixtures/oauth/oidc-provider"
import type { StartedOidcProvider } from "../fixtures/oauth/oidc-provider"

const SESSION = "authjs.session-token"

const noMail = {
  sendVerificationRequest: () => undefined,
  sendPasswordReset: () => undefined,
  sendAccountExists: () => undefined,
}

const APP = "http://app.test"
let op: StartedOidcProvider

beforeAll(async () => {
  op = await startOidcProvider({
    redirectUris: [`${APP}/auth/callback/idp`],
    claims: (id) => ({ sub: id, email: `${id}@idp.example`, email_verified: true }),
  })
})
afterAll(async () => op.close())

/** Audit events of the act types `prefix` names, after the background sinks ran. */
async function auditedAs(h: Harness, prefix: string) {
  await settle()
  return h.events.filter((e) => e.type.startsWith(prefix))
}

/** An impersonation of bob by root on `h`: bob's browser (signed in as bob) and the admin's browser, impersonating. */
async function bobAndImpersonation(h: Harness) {
  const bob = await h.signIn("bob")
  const { jar } = await impersonate(h, await h.signIn("root"), "bob")
  return { bob, jar }
}

describe.each(["jwt", "database"] as const)("while impersonating (%s sessions)", (strategy) => {
  it("changing or setting the password answers ImpersonationRestricted and writes no password", async () => {
    const adapter = MemoryAdapter()
    const h = await impersonationHarness(
      strategy,
      { providers: [harnessCredentials(adapter), Password({ scrypt: { ln: 10, r: 8, p: 1 }, ...noMail })] },
      adapter,
    )
    await h.addUser({ id: "cat", email: "cat@example.com" })
    // bob sets his own password; cat has none.
    const own = await postJson(h.app, await h.signIn("bob"), "/auth/set-password", { newPassword: "bob's own pass 1" })
    expect([own.status, own.body]).toEqual([200, { ok: true }])
    const bobRow = await adapter.getPasswordAccount("bob")
    expect(bobRow).not.toBeNull()
    const asBob = (await impersonate(h, await h.signIn("root"), "bob")).jar
    const asCat = (await impersonate(h, await h.signIn("root"), "cat")).jar
    await settle()
    h.events.length = 0

    const change = await postJson(h.app, asBob, "/auth/change-password", {
      currentPassword: "bob's own pass 1",
      newPassword: "chosen by the admin 1",
    })
    expect([change.status, change.body]).toEqual([403, { error: "ImpersonationRestricted" }])
    expect(setCookieOf(change, SESSION)).toBeUndefined()
    const set = await postJson(h.app, asCat, "/auth/set-password", { newPassword: "chosen by the admin 1" })
    expect([set.status, set.body]).toEqual([403, { error: "ImpersonationRestricted" }])
    expect(setCookieOf(set, SESSION)).toBeUndefined()

    expect(await adapter.getPasswordAccount("bob")).toEqual(bobRow)
    expect(await adapter.getPasswordAccount("cat")).toBeNull()
    expect(await auditedAs(h, "password.")).toEqual([])
    // The impersonation goes on, unchanged.
    expect((await readSession(h, asBob)).body).toMatchObject({ impersonatedBy: "root" })
  })

  it("passkey registration answers ImpersonationRestricted: at the options and at the callback; no passkey is stored", async () => {
    const adapter = MemoryAdapter()
    const passkey = Passkey({ relyingParty: { id: RP_ID, name: "Gatehouse test", origin: RP_ORIGIN } })
    const h = await impersonationHarness(strategy, { providers: [harnessCredentials(adapter), passkey] }, adapter)
    const { bob, jar } = await bobAndImpersonation(h)
    const host = new URL(RP_ORIGIN).host
    const options = (cookies: Record<string, string>, query: string) =>
      request(h.app)
        .get(`/auth/webauthn-options/passkey${query}`)
        .set("Host", host)
        .set("Cookie", cookieHeader(cookies))
    await settle()
    h.events.length = 0
    // The options are fetched by the page's script: a JSON refusal it can read, not a redirect to the error page.
    for (const query of ["?action=register", ""]) {
      const refused = await options(jar, query)
      expect([query, refused.status, refused.headers.location, refused.body]).toEqual([
        query,
        403,
        undefined,
        { error: "ImpersonationRestricted" },
      ])
      expect(refused.headers["content-type"]).toMatch(/^application\/json/)
      expect(refused.headers["set-cookie"]).toBeUndefined()
    }
    // The callback is a form post of the browser: it answers with the error page.
    const refusedAt = `${RP_ORIGIN}/auth/error?error=ImpersonationRestricted`

    // The challenge bob's own browser was given, carried by the impersonating browser to the callback.
    const own = await options(bob, "?action=register")
    expect(own.status).toBe(200)
    const withChallenge = cookieJar(jar, own.headers["set-cookie"])
    const csrf = await request(h.app).get("/auth/csrf").set("Host", host).set("Cookie", cookieHeader(withChallenge))
    const browser = cookieJar(withChallenge, csrf.headers["set-cookie"])
    const callback = await request(h.app)
      .post("/auth/callback/passkey")
      .set("Host", host)
      .set("Cookie", cookieHeader(browser))
      .type("form")
      .send({
        csrfToken: csrf.body.csrfToken,
        action: "register",
        data: JSON.stringify(newAuthenticator().register(own.body.options)),
      })
    expect(callback.status).toBe(302)
    expect(callback.headers.location).toBe(refusedAt)
    expect(setCookieOf(callback, SESSION)).toBeUndefined()
    expect(await adapter.listAuthenticatorsByUserId("bob")).toEqual([])
    expect(await auditedAs(h, "passkey.")).toEqual([])
    expect((await readSession(h, jar)).body).toMatchObject({ impersonatedBy: "root" })
  })

  it("signing in through an OAuth provider does not link its account to the impersonated user", async () => {
    const adapter = MemoryAdapter()
    const idp = testOidcProvider(op, "idp")
    const h = await impersonationHarness(strategy, { providers: [harnessCredentials(adapter), idp] }, adapter)
    const { jar } = await impersonate(h, await h.signIn("root"), "bob")
    const host = new URL(APP).host
    await settle()
    h.events.length = 0
    const csrf = await request(h.app).get("/auth/csrf").set("Host", host).set("Cookie", cookieHeader(jar))
    let browser = cookieJar(jar, csrf.headers["set-cookie"])
    const begin = await request(h.app)
      .post("/auth/signin/idp")
      .set("Host", host)
      .set("Cookie", cookieHeader(browser))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, callbackUrl: `${APP}/settings` })
    expect(begin.status).toBe(302)
    browser = cookieJar(browser, begin.headers["set-cookie"])
    const delivery = await driveAuthorization(begin.headers.location as string, `${APP}/auth/callback/`, {
      login: "carol",
    })
    const callback = await request(h.app)
      .get(`${delivery.url.pathname}?${delivery.params}`)
      .set("Host", host)
      .set("Cookie", cookieHeader(browser))
    expect(callback.status).toBe(302)
    expect(callback.headers.location).toBe(`${APP}/auth/error?error=ImpersonationRestricted`)
    expect(setCookieOf(callback, SESSION)).toBeUndefined()
    expect(await adapter.getUserByAccount({ provider: "idp", providerAccountId: "carol" })).toBeNull()
    expect(await adapter.listAccountsByUserId("bob")).toEqual([])
    expect(await auditedAs(h, "account.")).toEqual([])
    expect((await readSession(h, jar)).body).toMatchObject({ impersonatedBy: "root" })
  })

  it("confirming a native-app sign-in answers ImpersonationRestricted: no page, no code for the app", async () => {
    const h = await impersonationHarness(strategy, { native: { redirectUris: ["myapp://cb"], name: "Test CLI" } })
    const { jar } = await impersonate(h, await h.signIn("root"), "bob")
    const verifier = randomBytes(32).toString("base64url")
    const query = new URLSearchParams({
      callbackUrl: "myapp://cb",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      state: "st-1",
    })
    const start = await request(h.app).get(`/auth/signin/credentials?${query}`)
    expect(start.status).toBe(302)
    const continuation = new URL(new URL(start.headers.location as string).searchParams.get("callbackUrl")!)
    const ctx = continuation.searchParams.get("ctx")!

    const page = await request(h.app)
      .get(`${continuation.pathname}${continuation.search}`)
      .set("Cookie", cookieHeader(jar))
    // The browser routes answer with the error page.
    const refused = /^http:\/\/127\.0\.0\.1:\d+\/auth\/error\?error=ImpersonationRestricted$/
    expect(page.status).toBe(302)
    expect(page.headers.location).toMatch(refused)
    const csrf = await request(h.app).get("/auth/csrf").set("Cookie", cookieHeader(jar))
    const withCsrf = cookieJar(jar, csrf.headers["set-cookie"])
    const allow = await request(h.app)
      .post("/auth/native")
      .set("Cookie", cookieHeader(withCsrf))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, ctx, action: "allow" })
    expect(allow.status).toBe(302)
    expect(allow.headers.location).toMatch(refused)
    expect(setCookieOf(allow, SESSION)).toBeUndefined()
    expect(await auditedAs(h, "native.")).toEqual([])
  })
})

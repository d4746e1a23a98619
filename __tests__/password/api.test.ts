// passwords.md section 14, P13, P14, P15, P18: the forgot rate limit, CSRF on every POST, the JSON API, and the
// server functions of Gatehouse() behind the origin guard.
import request from "supertest"
import Credentials from "../../lib/providers/credentials"
import { confirmFormOf } from "../fixtures/magic-link"
import { cookieHeader } from "../express/apps"
import { passwordApp, seedUser, SESSION_COOKIE, type PasswordApp } from "./harness"

let app: PasswordApp
afterEach(async () => app.close())

describe("P13 the forgot-password rate limit (limiter on)", () => {
  it("answers three times, then RateLimited with Retry-After; an unknown address alike, with no mail", async () => {
    app = await passwordApp({ config: { rateLimit: { enabled: true } } })
    await seedUser(app, "ada@example.test", "ada password 1")
    // The sign-up above used one of the address's three emails: a fresh address shows the full window.
    await app.adapter.updateUser({
      id: (await app.adapter.getUserByEmail("ada@example.test"))!.id,
      email: "ann@example.test",
    })
    const browser = app.browser()
    const answers = async (email: string) => {
      const out: Array<{ status: number; location?: string; retryAfter?: string }> = []
      for (let i = 0; i < 4; i++) {
        const response = await browser.form("/auth/forgot-password", { email })
        out.push({
          status: response.status,
          location: response.headers.location,
          retryAfter: response.headers["retry-after"],
        })
      }
      return out
    }
    const known = await answers("ann@example.test")
    for (const answer of known.slice(0, 3)) {
      expect(answer.location).toBe(`${browser.origin}/auth/verify-request?provider=password&type=reset`)
    }
    const limited = known[3]!
    expect(limited.status).toBe(302)
    expect(limited.location).toMatch(
      new RegExp(`^${browser.origin}/auth/forgot-password\\?error=RateLimited&retry=\\d+$`),
    )
    expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1)
    expect(Number(limited.retryAfter)).toBeLessThanOrEqual(600)
    await app.waitForMail("reset", 3)
    expect(app.mail.reset).toHaveLength(3)

    const unknown = await answers("nobody@example.test")
    expect(unknown.map((a) => [a.status, a.location?.replace(/retry=\d+/, "retry=N")])).toEqual(
      known.map((a) => [a.status, a.location?.replace(/retry=\d+/, "retry=N")]),
    )
    expect(app.mail.reset).toHaveLength(3)
    const json = await browser.json("/auth/forgot-password", { email: "nobody@example.test" })
    expect(json.status).toBe(429)
    expect(json.body).toEqual({ error: "RateLimited" })
    expect(Number(json.headers["retry-after"])).toBeGreaterThanOrEqual(1)
  })
})

describe("P14 CSRF on every POST route", () => {
  const routes = [
    "/auth/signup",
    "/auth/verify-email",
    "/auth/resend-verification",
    "/auth/forgot-password",
    "/auth/reset-password",
    "/auth/change-password",
    "/auth/set-password",
  ]

  it.each([
    ["without a token", undefined],
    ["with a wrong token", "wrong-token"],
  ])("%s: form 302 MissingCSRF, JSON 403; nothing read, written or sent", async (_name, csrfToken) => {
    app = await passwordApp()
    const id = await seedUser(app, "ada@example.test", "ada password 1")
    const hash = (await app.adapter.getPasswordAccount(id))!.passwordHash
    const mails = { ...app.mail, verify: app.mail.verify.length }
    const browser = app.browser()
    await browser.csrf()
    const fields = {
      csrfToken,
      email: "new@example.test",
      password: "new password 1",
      token: "x",
      currentPassword: "ada password 1",
      newPassword: "new password 2",
    }
    for (const route of routes) {
      const form = await browser.form(route, fields)
      expect([route, form.status, form.headers.location]).toEqual([
        route,
        302,
        `${browser.origin}/auth/signin?error=MissingCSRF`,
      ])
      const json = await browser.json(route, fields)
      expect([route, json.status, json.body]).toEqual([route, 403, { error: "MissingCSRF" }])
      expect(json.headers["set-cookie"]?.toString() ?? "").not.toContain(SESSION_COOKIE)
    }
    const signIn = await browser.form("/auth/callback/password", {
      csrfToken,
      email: "ada@example.test",
      password: "ada password 1",
    })
    expect(signIn.status).toBe(302)
    expect(signIn.headers.location).toBe(`${browser.origin}/auth/signin?error=MissingCSRF`)
    expect(browser.jar[SESSION_COOKIE]).toBeUndefined()
    await new Promise((r) => setTimeout(r, 50))
    expect(app.mail.verify).toHaveLength(mails.verify)
    expect(app.mail.reset).toHaveLength(0)
    expect(app.mail.exists).toHaveLength(0)
    expect(await app.adapter.getUserByEmail("new@example.test")).toBeNull()
    expect((await app.adapter.getPasswordAccount(id))!.passwordHash).toBe(hash)
  })
})

describe("P15 the JSON API", () => {
  it("answers {ok:true}, sets the session on verify, keeps a link usable after a refused password", async () => {
    app = await passwordApp({
      config: {
        rateLimit: { enabled: false, rules: { "password-email-address": false } },
      },
    })
    const browser = app.browser()
    expect(
      (await browser.json("/auth/signup", { email: "js@example.test", password: "json password 1" })).body,
    ).toEqual({ ok: true })
    await app.waitForMail("verify", 1)
    expect((await browser.json("/auth/resend-verification", { email: "js@example.test" })).body).toEqual({ ok: true })
    await app.waitForMail("verify", 2)
    const link = new URL(app.mail.verify[1]!.url)
    const verify = await browser.json("/auth/verify-email", {
      token: link.searchParams.get("token"),
      email: link.searchParams.get("email"),
    })
    expect(verify.status).toBe(200)
    expect(verify.body).toEqual({ ok: true })
    expect(verify.headers["set-cookie"]?.toString()).toContain(`${SESSION_COOKIE}=`)
    expect((await browser.session())?.user?.email).toBe("js@example.test")

    expect((await browser.json("/auth/forgot-password", { email: "js@example.test" })).body).toEqual({ ok: true })
    await app.waitForMail("reset", 1)
    const reset = new URL(app.mail.reset[0]!.url)
    const token = reset.searchParams.get("token")!
    const bad = await browser.json("/auth/reset-password", {
      token: "nope",
      email: "js@example.test",
      password: "json password 2",
    })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: "Verification" })
    const short = await browser.json("/auth/reset-password", { token, email: "js@example.test", password: "short" })
    expect(short.status).toBe(400)
    expect(short.body).toEqual({ error: "PasswordPolicy", code: "too_short" })
    const good = await browser.json("/auth/reset-password", {
      token,
      email: "js@example.test",
      password: "json password 2",
    })
    expect(good.body).toEqual({ ok: true })

    const scripted = app.browser()
    const ok = await scripted.signIn("js@example.test", "json password 2", { "X-Auth-Return-Redirect": "1" })
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({ url: scripted.origin })
    const wrong = await scripted.signIn("js@example.test", "json password 1", { "X-Auth-Return-Redirect": "1" })
    expect(wrong.status).toBe(200)
    expect(wrong.body.url).toContain("error=CredentialsSignin")

    const signedIn = app.browser()
    await signedIn.signIn("js@example.test", "json password 2")
    const again = await signedIn.json("/auth/set-password", { newPassword: "another password" })
    expect(again.status).toBe(409)
    expect(again.body).toEqual({ error: "PasswordAlreadySet" })
  })
})

describe("P18 the server functions of Gatehouse()", () => {
  it("run from same-origin POST routes, refuse a cross-site one, and write nothing then", async () => {
    const oauthOnly = { id: "oauth-only", email: "oauth@example.test", emailVerified: new Date(), name: "O" }
    app = await passwordApp({
      config: { rateLimit: { enabled: false, rules: { "password-email-address": false } } },
      extraProviders: [
        Credentials({ credentials: { id: {} }, authorize: (c) => (c.id === oauthOnly.id ? oauthOnly : null) }),
      ],
    })
    await app.adapter.createUser(oauthOnly)
    const browser = app.browser()
    const post = (path: string, body: Record<string, string>, origin = browser.origin) =>
      request(browser.server)
        .post(path)
        .set("Origin", origin)
        .set("Cookie", cookieHeader(browser.jar))
        .type("form")
        .send(body)

    expect((await post("/fn/signup", { email: "fn@example.test", password: "function pw 1" })).body).toEqual({
      ok: true,
    })
    await app.waitForMail("verify", 1)
    expect((await post("/fn/resend", { email: "fn@example.test" })).body).toEqual({ ok: true })
    await app.waitForMail("verify", 2)
    expect((await post("/fn/forgot", { email: "fn@example.test" })).body).toEqual({ ok: true })
    await app.waitForMail("reset", 1)
    const link = new URL(app.mail.reset[0]!.url)
    const reset = await post("/fn/reset", {
      token: link.searchParams.get("token")!,
      email: "fn@example.test",
      password: "function pw 2",
    })
    expect(reset.body).toEqual({ ok: true })
    expect((await app.browser().signIn("fn@example.test", "function pw 2")).headers.location).not.toContain("error")
    // Server-side signIn("password") signs in through the callback route, like credentials.
    const viaSignIn = await post("/fn/signin", { email: "fn@example.test", password: "function pw 2" })
    expect(viaSignIn.body).toEqual({ url: browser.origin })
    expect(viaSignIn.headers["set-cookie"]?.toString()).toContain(`${SESSION_COOKIE}=`)
    const wrongSignIn = await post("/fn/signin", { email: "fn@example.test", password: "not it at all" })
    expect(wrongSignIn.body).toEqual({ thrown: "CredentialsSignin", code: "credentials" })
    // The app's code answers a failed server call: no refill cookie of the built-in page (no address in a cookie).
    expect(wrongSignIn.headers["set-cookie"]).toBeUndefined()

    // An OAuth-only user (signed in here through a credentials provider) sets a first password.
    const signedIn = await browser.form("/auth/callback/credentials", { id: oauthOnly.id })
    expect(signedIn.status).toBe(302)
    expect((await post("/fn/set", { next: "first password 1" })).body).toEqual({ ok: true })
    expect((await app.browser().signIn("oauth@example.test", "first password 1")).headers.location).not.toContain(
      "error",
    )
    expect(app.events.passwordChanged).toHaveBeenCalledWith(expect.objectContaining({ reason: "set" }))
    const twice = await post("/fn/set", { next: "first password 2" })
    expect(twice.status).toBe(409)
    expect(twice.body).toEqual({ thrown: "PasswordAlreadySet", code: "password_already_set" })

    const cross = await post(
      "/fn/signup",
      { email: "evil@example.test", password: "cross site 1" },
      "https://evil.example",
    )
    expect(cross.body).toEqual({ thrown: "MissingCSRF", code: "missing_csrf" })
    await new Promise((r) => setTimeout(r, 50))
    expect(await app.adapter.getUserByEmail("evil@example.test")).toBeNull()
    expect(app.mail.verify).toHaveLength(2)
    // A confirmation page form is what the mailed verification link opens.
    const verifyLink = new URL(app.mail.verify[0]!.url)
    const page = await browser.get(`${verifyLink.pathname}${verifyLink.search}`)
    expect(confirmFormOf(page.text).fields.email).toBe("fn@example.test")
  })
})

// Impersonation (accounts.md §3.5, acceptance rows AC15 and AC16): an admin acts as a user for at most an hour, with
// JWT and database sessions; what the app sees, what the session may not do, stopping, sign-out and expiry.
import express from "express"
import request from "supertest"
import { Gatehouse as WebGatehouse } from "../../lib/web"
import { SECRET } from "../express/apps"
import { cookieHeader, cookieJar, postJson, settle } from "./harness"
import {
  IMPERSONATOR,
  impersonate,
  impersonationHarness as setup,
  readSession as session,
  setCookieOf,
} from "../fixtures/impersonation"

/** Seconds from now until a `Set-Cookie` line ends (`Max-Age`, else `Expires`). */
function lifetimeOf(line: string): number {
  const maxAge = /Max-Age=(\d+)/i.exec(line)
  if (maxAge) return Number(maxAge[1])
  const expires = /Expires=([^;]+)/i.exec(line)
  if (!expires) throw new Error(`no lifetime in ${line}`)
  return (new Date(expires[1]!).getTime() - Date.now()) / 1000
}

afterEach(() => jest.restoreAllMocks())

describe.each(["jwt", "database"] as const)("impersonation with %s sessions", (strategy) => {
  it("AC15 the admin impersonates bob: the app sees bob with impersonatedBy; admin routes refused; stop restores", async () => {
    const h = await setup(strategy)
    const root = await h.signIn("root")
    const before = Date.now()
    const { res, jar } = await impersonate(h, root, "bob")
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      ok: true,
      session: { user: { email: "bob@example.com" }, impersonatedBy: "root" },
    })
    const cookie = setCookieOf(res, "authjs.session-token")!
    expect(lifetimeOf(cookie)).toBeLessThanOrEqual(3600)
    const sealed = setCookieOf(res, IMPERSONATOR)!
    expect(sealed).toMatch(/HttpOnly/i)
    expect(sealed).toMatch(/SameSite=Lax/i)
    expect(sealed).toMatch(/Path=\//)
    expect(lifetimeOf(sealed)).toBe(3600)

    const read = await session(h, jar)
    expect(read.body).toMatchObject({ user: { email: "bob@example.com" }, impersonatedBy: "root" })
    expect(new Date(read.body.expires).getTime()).toBeLessThanOrEqual(before + 3600_000 + 2000)

    // The server-side read (auth()) sees the same.
    const app = express()
    app.get("/me", (req, res, next) => h.gatehouse.auth(req, res).then((s) => res.json(s), next))
    const me = await request(app).get("/me").set("Cookie", cookieHeader(jar))
    expect(me.body).toMatchObject({ user: { email: "bob@example.com" }, impersonatedBy: "root" })

    for (const [method, path] of [
      ["GET", "/auth/admin/users"],
      ["GET", "/auth/admin/audit"],
    ] as const) {
      const denied = await request(h.app).get(path).set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
      expect([method, path, denied.status, denied.body]).toEqual([
        method,
        path,
        403,
        { error: "ImpersonationRestricted" },
      ])
    }
    const ban = await postJson(h.app, jar, "/auth/admin/ban", { id: "bob" })
    expect([ban.status, ban.body]).toEqual([403, { error: "ImpersonationRestricted" }])

    const stop = await postJson(h.app, jar, "/auth/admin/stop-impersonating", {})
    expect(stop.status).toBe(200)
    expect(stop.body.ok).toBe(true)
    expect(stop.body.session.user.email).toBe("root@example.com")
    expect(stop.body.session).not.toHaveProperty("impersonatedBy")
    expect(setCookieOf(stop, IMPERSONATOR)).toMatch(/Max-Age=0/)
    const back = cookieJar(jar, stop.headers["set-cookie"])
    expect(back[IMPERSONATOR]).toBeUndefined()
    const restored = await session(h, back)
    expect(restored.body.user.email).toBe("root@example.com")
    expect(restored.body).not.toHaveProperty("impersonatedBy")
    // The admin is an admin again.
    expect((await request(h.app).get("/auth/admin/users").set("Cookie", cookieHeader(back))).status).toBe(200)
    // A copy of the impersonation cookie kept from before the stop reads as no session.
    expect((await session(h, jar)).body).toBeNull()

    await settle()
    const acts = h.events.filter((e) => e.type.startsWith("impersonation."))
    expect(acts.map((e) => [e.type, e.userId, e.actorId, e.outcome])).toEqual([
      ["impersonation.started", "bob", "root", "success"],
      ["impersonation.stopped", "bob", "root", "success"],
    ])
  })

  it("AC16 impersonating another admin or yourself is refused; the caller's session is unchanged", async () => {
    const h = await setup(strategy)
    const root = await h.signIn("root")
    const admin = await impersonate(h, root, "boss")
    expect([admin.res.status, admin.res.body]).toEqual([403, { error: "AdminTarget" }])
    expect(setCookieOf(admin.res, "authjs.session-token")).toBeUndefined()
    expect(setCookieOf(admin.res, IMPERSONATOR)).toBeUndefined()
    const self = await impersonate(h, root, "root")
    expect([self.res.status, self.res.body]).toEqual([400, { error: "InvalidTarget" }])
    const missing = await impersonate(h, root, "nobody")
    expect([missing.res.status, missing.res.body]).toEqual([404, { error: "NotFound" }])
    const read = await session(h, self.jar)
    expect(read.body.user.email).toBe("root@example.com")
    expect(read.body).not.toHaveProperty("impersonatedBy")
  })

  it("a non-admin, a banned target and a stale session are refused; stop without impersonating is 409", async () => {
    const h = await setup(strategy, { session: { strategy, freshAge: 60 } })
    const bob = await h.signIn("bob")
    const byBob = await impersonate(h, bob, "root")
    expect([byBob.res.status, byBob.res.body]).toEqual([403, { error: "AdminRequired" }])
    const root = await h.signIn("root")
    const notImpersonating = await postJson(h.app, root, "/auth/admin/stop-impersonating", {})
    expect([notImpersonating.status, notImpersonating.body]).toEqual([409, { error: "NotImpersonating" }])
    await h.adapter.updateUser({ id: "bob", banned: true })
    const banned = await impersonate(h, root, "bob")
    expect([banned.res.status, banned.res.body]).toEqual([409, { error: "AccountBanned" }])
    await h.adapter.updateUser({ id: "bob", banned: false })
    const now = Date.now()
    jest.spyOn(Date, "now").mockReturnValue(now + 120_000)
    const stale = await impersonate(h, root, "bob")
    expect([stale.res.status, stale.res.body]).toEqual([403, { error: "SessionNotFresh" }])
  })

  it("an impersonation session may read but not change the account, and cannot nest", async () => {
    const h = await setup(strategy)
    const { jar } = await impersonate(h, await h.signIn("root"), "bob")
    const email = await postJson(h.app, jar, "/auth/account/email", { email: "new@example.com" })
    expect([email.status, email.body]).toEqual([403, { error: "ImpersonationRestricted" }])
    const remove = await postJson(h.app, jar, "/auth/account/delete", {})
    expect([remove.status, remove.body]).toEqual([403, { error: "ImpersonationRestricted" }])
    const unlink = await postJson(h.app, jar, "/auth/account/unlink", { provider: "github", providerAccountId: "1" })
    expect([unlink.status, unlink.body]).toEqual([403, { error: "ImpersonationRestricted" }])
    const nested = await impersonate(h, jar, "root")
    expect([nested.res.status, nested.res.body]).toEqual([403, { error: "ImpersonationRestricted" }])
    expect(await h.adapter.getUser("bob")).toMatchObject({ email: "bob@example.com" })
    // Reading is allowed: the sign-in methods and the sessions, marked as an impersonation.
    const accounts = await request(h.app).get("/auth/account").set("Cookie", cookieHeader(jar))
    expect(accounts.status).toBe(200)
    const sessions = await request(h.app).get("/auth/sessions").set("Cookie", cookieHeader(jar))
    expect(sessions.status).toBe(200)
    const current = (sessions.body as Array<{ current: boolean; impersonated?: true }>).find((s) => s.current)
    expect(current?.impersonated).toBe(true)
  })

  it("sign-out ends the impersonation session and the admin session it holds; both cookies are cleared", async () => {
    const h = await setup(strategy)
    const root = await h.signIn("root")
    const { jar } = await impersonate(h, root, "bob")
    const csrf = await request(h.app).get("/auth/csrf").set("Cookie", cookieHeader(jar))
    const withCsrf = cookieJar(jar, csrf.headers["set-cookie"])
    const out = await request(h.app)
      .post("/auth/signout")
      .set("Cookie", cookieHeader(withCsrf))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken })
    expect(out.status).toBe(302)
    expect(setCookieOf(out, IMPERSONATOR)).toMatch(/Max-Age=0/)
    expect(setCookieOf(out, "authjs.session-token")).toMatch(/Max-Age=0/)
    // A copy of the impersonation cookie no longer reads.
    expect((await session(h, jar)).body).toBeNull()
    // Database: the admin's own row is gone too (a JWT admin session is dropped with the cookie, as the spec says).
    if (strategy === "database") expect((await session(h, root)).body).toBeNull()
    await settle()
    const stopped = h.events.find((e) => e.type === "impersonation.stopped")
    expect(stopped).toMatchObject({ userId: "bob", actorId: "root", reason: "signout" })
    const signout = h.events.find((e) => e.type === "signout")
    expect(signout).toMatchObject({ userId: "bob", actorId: "root" })
  })

  it("after impersonationMaxAge the impersonation session reads as no session, and never slides", async () => {
    const h = await setup(strategy, { admin: { impersonationMaxAge: 60 } })
    const { res, jar } = await impersonate(h, await h.signIn("root"), "bob")
    expect(lifetimeOf(setCookieOf(res, IMPERSONATOR)!)).toBe(60)
    expect(lifetimeOf(setCookieOf(res, "authjs.session-token")!)).toBeLessThanOrEqual(60)
    const now = Date.now()
    jest.spyOn(Date, "now").mockReturnValue(now + 30_000)
    const half = await session(h, jar)
    expect(half.body).toMatchObject({ impersonatedBy: "root" })
    expect(new Date(half.body.expires).getTime()).toBeLessThanOrEqual(now + 61_000)
    const later = cookieJar(jar, half.headers["set-cookie"])
    jest.spyOn(Date, "now").mockReturnValue(now + 61_000)
    expect((await session(h, later)).body).toBeNull()
  })
})

describe("impersonation rules that need one strategy", () => {
  it("a browser still holding an impersonator cookie cannot start another impersonation until it stops or signs out", async () => {
    const h = await setup("database")
    const { jar } = await impersonate(h, await h.signIn("root"), "bob")
    // The admin signs in again in the same browser (the impersonation session is replaced; the cookie stays).
    const csrf = await request(h.app).get("/auth/csrf").set("Cookie", cookieHeader(jar))
    let again = cookieJar(jar, csrf.headers["set-cookie"])
    const signIn = await request(h.app)
      .post("/auth/callback/credentials")
      .set("Cookie", cookieHeader(again))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, username: "root", password: "correct horse battery staple" })
    again = cookieJar(again, signIn.headers["set-cookie"])
    expect(again[IMPERSONATOR]).toBeDefined()
    const nested = await impersonate(h, again, "bob")
    expect([nested.res.status, nested.res.body]).toEqual([409, { error: "AlreadyImpersonating" }])
    const out = await postJson(h.app, again, "/auth/signout", {})
    expect(setCookieOf(out, IMPERSONATOR)).toMatch(/Max-Age=0/)
  })

  it("a bad id is refused before anything is issued: missing, not a string, empty, too long", async () => {
    const h = await setup("jwt")
    const root = await h.signIn("root")
    for (const id of [undefined, 42, { $ne: null }, ["bob"], "", "x".repeat(256)]) {
      const res = await postJson(h.app, root, "/auth/admin/impersonate", id === undefined ? {} : { id })
      expect([JSON.stringify(id), res.status, res.body]).toEqual([JSON.stringify(id), 400, { error: "InvalidRequest" }])
      expect(setCookieOf(res, "authjs.session-token")).toBeUndefined()
      expect(setCookieOf(res, IMPERSONATOR)).toBeUndefined()
    }
    await settle()
    expect(h.events.some((e) => e.type === "impersonation.started")).toBe(false)
  })

  it("an impersonator cookie sealed for another admin restores nobody", async () => {
    const h = await setup("database")
    await h.addUser({ id: "cat", email: "cat@example.com" })
    const byRoot = await impersonate(h, await h.signIn("root"), "bob")
    const byBoss = await impersonate(h, await h.signIn("boss"), "cat")
    // boss's impersonation session with root's impersonator cookie: the held session is root's, not boss's.
    const mixed = { ...byBoss.jar, [IMPERSONATOR]: byRoot.jar[IMPERSONATOR]! }
    const stop = await postJson(h.app, mixed, "/auth/admin/stop-impersonating", {})
    expect([stop.status, stop.body]).toEqual([200, { ok: true, session: null }])
    expect(cookieJar(mixed, stop.headers["set-cookie"])["authjs.session-token"]).toBeUndefined()
  })

  it("two-factor enrolment, passkey changes and access tokens are refused while impersonating", async () => {
    const h = await setup("jwt", {
      twoFactor: { issuer: "Gatehouse Test" },
      accessTokens: { audience: "https://api.example.test" },
    })
    const { jar } = await impersonate(h, await h.signIn("root"), "bob")
    const app = express()
    const run = (call: (req: express.Request, res: express.Response) => Promise<unknown>) =>
      ((req, res) => {
        call(req, res).then(
          () => res.json({ ok: true }),
          (error: { type?: string; status?: number }) => res.json({ type: error.type, status: error.status }),
        )
      }) as express.RequestHandler
    app.post(
      "/totp",
      run((req, res) => h.gatehouse.enableTotp(req, res)),
    )
    app.post(
      "/passkey",
      run((req, res) => h.gatehouse.deleteAuthenticator(req, res, "some-id")),
    )
    app.post(
      "/token",
      run((req, res) => h.gatehouse.issueAccessToken(req, res)),
    )
    for (const path of ["/totp", "/passkey", "/token"]) {
      const res = await request(app).post(path).set("Cookie", cookieHeader(jar))
      expect([path, res.body]).toEqual([path, { type: "ImpersonationRestricted", status: 403 }])
    }
    const route = await request(h.app).get("/auth/token").set("Cookie", cookieHeader(jar))
    expect([route.status, route.body.error]).toEqual([403, "ImpersonationRestricted"])
    expect(await h.adapter.getTwoFactor("bob")).toBeNull()
  })

  it("stop with a tampered impersonator cookie ends the impersonation and signs the browser out", async () => {
    const h = await setup("jwt")
    const { jar } = await impersonate(h, await h.signIn("root"), "bob")
    const tampered = { ...jar, [IMPERSONATOR]: `${jar[IMPERSONATOR]!.slice(0, -4)}AAAA` }
    const stop = await postJson(h.app, tampered, "/auth/admin/stop-impersonating", {})
    expect([stop.status, stop.body]).toEqual([200, { ok: true, session: null }])
    const after = cookieJar(tampered, stop.headers["set-cookie"])
    expect(after["authjs.session-token"]).toBeUndefined()
    expect(after[IMPERSONATOR]).toBeUndefined()
    expect((await session(h, jar)).body).toBeNull()
  })

  it("a jwt callback that drops the reserved claim does not turn the impersonation into a normal session", async () => {
    const h = await setup("jwt", {
      callbacks: {
        jwt: ({ token }) => {
          const { __gh: _drop, ...rest } = token
          return { ...rest, __gh: null }
        },
      },
    })
    const { jar } = await impersonate(h, await h.signIn("root"), "bob")
    const read = await session(h, jar)
    expect(read.body).toMatchObject({ user: { email: "bob@example.com" }, impersonatedBy: "root" })
    const denied = await request(h.app)
      .get("/auth/admin/users")
      .set("Cookie", cookieHeader(cookieJar(jar, read.headers["set-cookie"])))
    expect(denied.status).toBe(403)
  })

  it("the jwt callback sees the impersonation sign-in; no signIn callback or event runs", async () => {
    const seen: Array<{ trigger?: string; provider?: string }> = []
    const signIns: string[] = []
    const h = await setup("jwt", {
      callbacks: {
        jwt: ({ token, trigger, account }) => {
          if (trigger) seen.push({ trigger, provider: account?.provider })
          return token
        },
        signIn: ({ user }) => {
          signIns.push(String(user.id))
          return true
        },
      },
    })
    await impersonate(h, await h.signIn("root"), "bob")
    expect(seen).toEqual([
      { trigger: "signIn", provider: "credentials" },
      { trigger: "signIn", provider: "impersonation" },
    ])
    expect(signIns).toEqual(["root"])
  })

  it("the Express members impersonate and stop, writing the cookies", async () => {
    const h = await setup("database")
    const root = await h.signIn("root")
    const app = express()
    app.use(express.json())
    app.post("/as/:id", (req, res, next) =>
      h.gatehouse.impersonate(req, res, String(req.params.id), { csrf: false }).then((s) => res.json(s), next),
    )
    const started = await request(app).post("/as/bob").set("Cookie", cookieHeader(root))
    expect(started.body).toMatchObject({ user: { email: "bob@example.com" }, impersonatedBy: "root" })
    const jar = cookieJar(root, started.headers["set-cookie"])
    expect(jar[IMPERSONATOR]).toBeDefined()

    app.post("/stop", (req, res, next) =>
      h.gatehouse.stopImpersonating(req, res, { csrf: false }).then((s) => res.json(s), next),
    )
    const stopped = await request(app).post("/stop").set("Cookie", cookieHeader(jar))
    expect(stopped.body.user.email).toBe("root@example.com")
    const back = cookieJar(jar, stopped.headers["set-cookie"])
    expect((await session(h, back)).body.user.email).toBe("root@example.com")
  })

  it("the Fetch flavour queues both cookies for applyCookies", async () => {
    const h = await setup("jwt")
    const root = await h.signIn("root")
    const web = WebGatehouse({
      secret: SECRET,
      trustHost: true,
      adapter: h.adapter,
      session: { strategy: "jwt" },
      admin: {},
      providers: [],
    })
    const req = new Request("http://localhost/x", { method: "POST", headers: { cookie: cookieHeader(root) } })
    const started = await web.impersonate(req, "bob", { csrf: false })
    expect(started).toMatchObject({ user: { email: "bob@example.com" }, impersonatedBy: "root" })
    const answered = web.applyCookies(req, new Response(null))
    const lines = answered.headers.getSetCookie()
    expect(lines.some((line) => line.startsWith(`${IMPERSONATOR}=`))).toBe(true)
    expect(lines.some((line) => line.startsWith("authjs.session-token="))).toBe(true)
    const jar = cookieJar(root, lines)
    const again = new Request("http://localhost/x", { method: "POST", headers: { cookie: cookieHeader(jar) } })
    const restored = await web.stopImpersonating(again, { csrf: false })
    expect(restored?.user?.email).toBe("root@example.com")
  })
})

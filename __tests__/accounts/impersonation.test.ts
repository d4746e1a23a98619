// Impersonation (accounts.md §3.5, acceptance rows AC15 and AC16): an admin acts as a user for at most an hour, with
// JWT and database sessions; what the app sees, what the session may not do, stopping and sign-out. Expiry is in
// impersonation-expiry.test.ts, the rules checked with one strategy in impersonation-rules.test.ts, the refused
// credential changes in impersonation-restrictions.test.ts.
import express from "express"
import request from "supertest"
import { cookieHeader, cookieJar, postJson, settle } from "./harness"
import {
  IMPERSONATOR,
  impersonate,
  impersonationHarness as setup,
  readSession as session,
  lifetimeOf,
  setCookieOf,
} from "../fixtures/impersonation"

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
})

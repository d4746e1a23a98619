// An impersonation past its cap (accounts.md §3.5 "Expiry", table 4.2): it reads as no session, and where the
// browser still hands in the impersonator cookie (stop, sign-out) both cookies are cleared, nothing is restored, and
// `impersonation.stopped` is audited once with reason `expired`. A plain read past the cap audits nothing.
import request from "supertest"
import { cookieHeader, cookieJar, postJson, settle } from "./harness"
import type { Harness } from "./harness"
import {
  IMPERSONATOR,
  impersonate,
  impersonationHarness,
  lifetimeOf,
  readSession,
  setCookieOf,
} from "../fixtures/impersonation"

const SESSION = "authjs.session-token"

afterEach(() => jest.restoreAllMocks())

/** root impersonates bob for 60 s, then the clock moves `after` ms on: root's own cookies and the browser's. */
async function pastTheCap(strategy: "jwt" | "database", after = 61_000) {
  const h = await impersonationHarness(strategy, { admin: { impersonationMaxAge: 60 } })
  const root = await h.signIn("root")
  const { res, jar } = await impersonate(h, root, "bob")
  const now = Date.now()
  jest.spyOn(Date, "now").mockReturnValue(now + after)
  return { h, root, res, jar }
}

/** The `impersonation.*` events, as `[type, userId, actorId, reason]`. */
async function impersonationEvents(h: Harness) {
  await settle()
  return h.events.filter((e) => e.type.startsWith("impersonation.")).map((e) => [e.type, e.userId, e.actorId, e.reason])
}

const started = ["impersonation.started", "bob", "root", null]
const expired = ["impersonation.stopped", "bob", "root", "expired"]

describe.each(["jwt", "database"] as const)("an impersonation past its cap (%s sessions)", (strategy) => {
  it("reads as no session and never slides; a read audits nothing", async () => {
    const { h, res, jar } = await pastTheCap(strategy, 30_000)
    expect(lifetimeOf(setCookieOf(res, IMPERSONATOR)!)).toBe(60)
    expect(lifetimeOf(setCookieOf(res, SESSION)!)).toBeLessThanOrEqual(60)
    const half = await readSession(h, jar)
    expect(half.body).toMatchObject({ impersonatedBy: "root" })
    expect(new Date(half.body.expires).getTime()).toBeLessThanOrEqual(Date.now() + 31_000)
    jest.spyOn(Date, "now").mockReturnValue(Date.now() + 31_000)
    for (let i = 0; i < 2; i++)
      expect((await readSession(h, cookieJar(jar, half.headers["set-cookie"]))).body).toBeNull()
    expect(await impersonationEvents(h)).toEqual([started])
  })

  it("stop clears both cookies, restores nobody and audits `expired` once", async () => {
    const { h, jar } = await pastTheCap(strategy)
    const stop = await postJson(h.app, jar, "/auth/admin/stop-impersonating", {})
    expect([stop.status, stop.body]).toEqual([200, { ok: true, session: null }])
    expect(setCookieOf(stop, IMPERSONATOR)).toMatch(/Max-Age=0/)
    expect(setCookieOf(stop, SESSION)).toMatch(/Max-Age=0/)
    const after = cookieJar(jar, stop.headers["set-cookie"])
    expect(after).not.toHaveProperty(SESSION)
    expect(after).not.toHaveProperty(IMPERSONATOR)
    // The browser's next stop carries neither cookie: nothing more is written.
    const again = await postJson(h.app, after, "/auth/admin/stop-impersonating", {})
    expect([again.status, again.body]).toEqual([401, { error: "Unauthorized" }])
    expect(await impersonationEvents(h)).toEqual([started, expired])
  })

  it("sign-out clears both cookies, ends the admin session it held and audits `expired` once", async () => {
    const { h, root, jar } = await pastTheCap(strategy)
    const out = await postJson(h.app, jar, "/auth/signout", {})
    expect(setCookieOf(out, IMPERSONATOR)).toMatch(/Max-Age=0/)
    expect(setCookieOf(out, SESSION)).toMatch(/Max-Age=0/)
    const after = cookieJar(jar, out.headers["set-cookie"])
    await postJson(h.app, after, "/auth/signout", {})
    // Database: the admin's own row is gone (a JWT admin session is dropped with the cookie).
    if (strategy === "database") expect((await readSession(h, root)).body).toBeNull()
    expect(await impersonationEvents(h)).toEqual([started, expired])
  })

  it("without the impersonator cookie, stop and sign-out past the cap audit nothing", async () => {
    const { h, jar } = await pastTheCap(strategy)
    const { [IMPERSONATOR]: _dropped, ...sessionOnly } = jar
    const stop = await postJson(h.app, sessionOnly, "/auth/admin/stop-impersonating", {})
    expect([stop.status, stop.body]).toEqual([401, { error: "Unauthorized" }])
    const csrf = await request(h.app).get("/auth/csrf").set("Cookie", cookieHeader(sessionOnly))
    const out = await request(h.app)
      .post("/auth/signout")
      .set("Cookie", cookieHeader(cookieJar(sessionOnly, csrf.headers["set-cookie"])))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken })
    expect(out.status).toBe(302)
    expect(await impersonationEvents(h)).toEqual([started])
  })
})

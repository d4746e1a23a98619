// Impersonation rules checked with one session strategy (accounts.md §3.5): nesting, bad ids, foreign or tampered
// impersonator cookies, what stays refused, the jwt callback, and the Express and Fetch members.
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

import request from "supertest"
import { ExpressAuth, getSession, requireAuth } from "../../lib"
import { encode } from "../../lib/jwt"
import { SECRET, authConfig, cookieHeader, cookieJar, signIn, versions } from "./apps"
import { fakeDateOnly } from "../fixtures/clock"

describe.each(versions)("requireAuth on %s", (_name, express) => {
  function app(config = authConfig(), options?: Parameters<typeof requireAuth>[1]) {
    const a = express()
    a.use("/auth", ExpressAuth(config))
    a.get("/protected", requireAuth(config, options), (req, res) => {
      res.json({ locals: res.locals.session, user: req.user, auth: req.auth, authenticated: req.isAuthenticated() })
    })
    a.get("/api/data", requireAuth(config), (_req, res) => res.json({ ok: true }))
    return a
  }

  it("authenticated: sets res.locals.session, req.user, req.auth; isAuthenticated() is true", async () => {
    const a = app()
    const jar = await signIn(a)
    const res = await request(a).get("/protected").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
    expect(res.status).toBe(200)
    expect(res.body.locals.user).toEqual({ name: "Ada", email: "ada@x.test" })
    expect(res.body.user).toEqual({ name: "Ada", email: "ada@x.test" })
    expect(res.body.auth).toEqual(res.body.locals)
    expect(res.body.authenticated).toBe(true)
  })

  it("API clients without a session get 401 JSON", async () => {
    const res = await request(app()).get("/api/data").set("Accept", "application/json")
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ error: "Unauthorized" })
    const xhr = await request(app())
      .get("/api/data")
      .set("Accept", "text/html")
      .set("X-Requested-With", "XMLHttpRequest")
    expect(xhr.status).toBe(401)
  })

  it("browsers are redirected to the sign-in page with callbackUrl", async () => {
    const res = await request(app()).get("/protected?x=1").set("Accept", "text/html,application/xhtml+xml")
    expect(res.status).toBe(302)
    const location = new URL(res.headers.location!, "http://h")
    expect(location.pathname).toBe("/auth/signin")
    expect(location.searchParams.get("callbackUrl")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/protected\?x=1$/)
  })

  it("a catch-all path like //evil.example stays on our origin as callbackUrl (CVE-2022-24794)", async () => {
    const config = authConfig()
    const a = express()
    a.use("/auth", ExpressAuth(config))
    a.use(requireAuth(config), (_req, res) => res.send("ok"))
    const res = await request(a).get("//evil.example").set("Accept", "text/html")
    const callbackUrl = new URL(res.headers.location!, "http://h").searchParams.get("callbackUrl")!
    expect(new URL(callbackUrl).host).toMatch(/^127\.0\.0\.1:\d+$/)
  })

  it.each([
    ["garbage", "garbage"],
    ["an empty value", ""],
  ])("a %s session cookie is 401, never a throw", async (_n, value) => {
    const res = await request(app())
      .get("/api/data")
      .set("Cookie", `authjs.session-token=${value}`)
      .set("Accept", "application/json")
    expect(res.status).toBe(401)
  })

  it("authorize(session, req) false answers 403", async () => {
    const a = app(authConfig(), { authorize: (s) => s.user?.email === "root@x.test" })
    const jar = await signIn(a)
    const res = await request(a).get("/protected").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ error: "Forbidden" })
  })

  it("honours callbacks.authorized: false denies, a Response is sent as is", async () => {
    const deny = app(authConfig({ callbacks: { authorized: () => false } }))
    const jar = await signIn(deny)
    const denied = await request(deny)
      .get("/protected")
      .set("Cookie", cookieHeader(jar))
      .set("Accept", "application/json")
    expect(denied.status).toBe(403)

    const custom = app(
      authConfig({
        callbacks: {
          authorized: ({ request: r }) =>
            r.nextUrl.pathname === "/protected" ? new Response("teapot", { status: 418 }) : true,
        },
      }),
    )
    const res = await request(custom).get("/protected")
    expect(res.status).toBe(418)
    expect(res.text).toBe("teapot")
  })

  it("getSession refreshes the cookie at most once per updateAge and writes it to the response", async () => {
    const config = authConfig({ session: { updateAge: 60 } })
    const a = express()
    a.get("/whoami", async (req, res) => {
      const session = await getSession(req, config)
      res.json({ name: session?.user?.name ?? null })
    })
    const fresh = await encode({ token: { name: "Ada", sub: "u1" }, secret: SECRET, salt: "authjs.session-token" })
    const noRefresh = await request(a).get("/whoami").set("Cookie", `authjs.session-token=${fresh}`)
    expect(noRefresh.body.name).toBe("Ada")
    expect(noRefresh.headers["set-cookie"]).toBeUndefined()

    // The shared Date-only fake clock: a token issued an hour ago (past updateAge) is re-issued now.
    fakeDateOnly(Date.now() - 3600 * 1000)
    const old = await encode({
      token: { name: "Ada", sub: "u1" },
      secret: SECRET,
      salt: "authjs.session-token",
    }).finally(() => jest.useRealTimers())
    const refreshed = await request(a).get("/whoami").set("Cookie", `authjs.session-token=${old}`)
    expect(refreshed.body.name).toBe("Ada")
    const jar = cookieJar({}, refreshed.headers["set-cookie"])
    expect(jar["authjs.session-token"]).toBeTruthy()
    expect(jar["authjs.session-token"]).not.toBe(old)
  })
})

/**
 * `Gatehouse(config)` for Express, the `auth` forms: next-wave A.4 rows A1, A3-A6, A13, A15, the request context,
 * and A.3 rules 4, 5 and 7.
 */
import type { AddressInfo } from "node:net"
import request from "supertest"
import type { ErrorRequestHandler, Express, Request as ExpressRequest, Response as ExpressResponse } from "express"
import { Gatehouse, MissingRequestContext, getSession } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { decode, encode } from "../../lib/jwt"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { fakeDateOnly } from "../fixtures/clock"
import { testLogger } from "../core/helpers"
import { authConfig, cookieJar, SECRET, versions, type ExpressFactory } from "./apps"

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0)
const DAY = 24 * 60 * 60
const SALT = "authjs.session-token"

beforeAll(() => {
  process.env.AUTH_URL = "http://localhost:3000/auth"
})
afterAll(() => {
  delete process.env.AUTH_URL
})
afterEach(() => {
  jest.useRealTimers()
})

const onError: ErrorRequestHandler = (err, _req, res, _next) => {
  res.status((err as { status?: number }).status ?? 500).json({ error: (err as Error).message })
}

/** A session cookie issued `ageSeconds` ago (the token's `iat` is set by `encode` from the clock). */
async function sessionCookie(ageSeconds = 0): Promise<string> {
  const now = Date.now()
  if (ageSeconds > 0) jest.setSystemTime(now - ageSeconds * 1000)
  const token = await encode({ token: { name: "Ada", email: "ada@x.test", sub: "u1" }, secret: SECRET, salt: SALT })
  if (ageSeconds > 0) jest.setSystemTime(now)
  return `${SALT}=${token}`
}

function setCookieList(header: string[] | string | undefined): string[] {
  return header === undefined ? [] : Array.isArray(header) ? header : [header]
}

describe.each(versions)("Gatehouse auth on %s", (name, express: ExpressFactory) => {
  function build(config: AuthConfig, routes: (a: Express, gh: ReturnType<typeof Gatehouse>) => void): Express {
    const gh = Gatehouse(config)
    const a = express()
    routes(a, gh)
    a.use(onError)
    return a
  }

  it("A1: auth(req, res) without a cookie is null with 0 Set-Cookie; an old cookie is refreshed exactly once", async () => {
    fakeDateOnly(NOW)
    const a = build(authConfig(), (app, { auth }) => {
      app.get("/me", async (req, res) => {
        const first = await auth(req, res)
        const second = await auth(req, res)
        res.json({ same: first === second, name: first?.user?.name ?? null })
      })
    })
    const none = await request(a).get("/me")
    expect(none.body).toEqual({ same: true, name: null })
    expect(setCookieList(none.headers["set-cookie"])).toHaveLength(0)

    const old = await sessionCookie(2 * DAY)
    const res = await request(a).get("/me").set("Cookie", old)
    expect(res.body).toEqual({ same: true, name: "Ada" })
    const cookies = setCookieList(res.headers["set-cookie"]).filter((c) => c.startsWith(`${SALT}=`))
    expect(cookies).toHaveLength(1)
    const payload = await decode({ token: cookieJar({}, cookies)[SALT]!, secret: SECRET, salt: SALT })
    expect(payload?.iat).toBe(Math.floor(NOW / 1000))
  })

  describe("app.use(auth) with callbacks.authorized", () => {
    function guarded(authorized: NonNullable<AuthConfig["callbacks"]>["authorized"], logger = testLogger()) {
      const downstream = jest.fn()
      const a = build(authConfig({ callbacks: { authorized }, logger }), (app, { handlers, auth }) => {
        app.use(auth)
        app.use("/auth", handlers)
        app.get("/dashboard", (_req, res) => {
          downstream()
          res.send("dashboard")
        })
      })
      return { a, downstream, logger }
    }

    it("A3: browser → 302 to sign-in with callbackUrl, API client → 401 JSON, signed in but refused → 403", async () => {
      const { a, downstream } = guarded(({ auth }) => !!auth)
      const browser = await request(a).get("/dashboard").set("Accept", "text/html")
      expect(browser.status).toBe(302)
      expect(browser.headers.location).toBe("/auth/signin?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fdashboard")
      const api = await request(a).get("/dashboard").set("Accept", "application/json")
      expect(api.status).toBe(401)
      expect(api.body).toEqual({ error: "Unauthorized" })

      const refusing = guarded(() => false)
      const signedIn = await request(refusing.a)
        .get("/dashboard")
        .set("Cookie", await sessionCookie())
        .set("Accept", "text/html")
      expect(signedIn.status).toBe(403)
      expect(refusing.downstream).toHaveBeenCalledTimes(0)
      expect(downstream).toHaveBeenCalledTimes(0)
    })

    it("authorized returning true, or undefined-free truthy values, lets the request through", async () => {
      const { a, downstream } = guarded(({ auth }) => !!auth)
      const res = await request(a)
        .get("/dashboard")
        .set("Cookie", await sessionCookie())
      expect(res.text).toBe("dashboard")
      expect(downstream).toHaveBeenCalledTimes(1)
    })

    it("A5: a Response redirecting to the current URL is not sent: handled as false, one loop warning", async () => {
      const { a, logger } = guarded(() => Response.redirect("http://localhost:3000/dashboard"))
      const res = await request(a).get("/dashboard").set("Accept", "text/html")
      expect(res.status).toBe(302)
      expect(res.headers.location).toBe("/auth/signin?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fdashboard")
      expect(logger.warnings.filter((w) => w === "authorized-redirect-loop")).toHaveLength(1)
    })

    it("a Response redirecting elsewhere is sent as it is", async () => {
      const { a } = guarded(() => Response.redirect("http://localhost:3000/elsewhere"))
      const res = await request(a).get("/dashboard").set("Accept", "text/html")
      expect(res.status).toBe(302)
      expect(res.headers.location).toBe("http://localhost:3000/elsewhere")
    })

    it("A6: the auth routes bypass authorized", async () => {
      const authorized = jest.fn(() => false)
      const { a } = guarded(authorized)
      expect((await request(a).get("/auth/signin")).status).toBe(200)
      expect((await request(a).get("/auth/csrf")).status).toBe(200)
      expect(authorized).not.toHaveBeenCalled()
    })

    it("A15: an adapter that throws while reading the session denies (401/302), never 500", async () => {
      const adapter = MemoryAdapter()
      adapter.getSessionAndUser = () => Promise.reject(new Error("database down"))
      const logger = testLogger()
      const config = authConfig({ adapter, logger, callbacks: { authorized: ({ auth }) => !!auth } })
      const a = build(config, (app, { auth }) => {
        app.get("/read", async (req, res) => res.json({ session: await auth(req, res) }))
        app.use(auth)
        app.get("/dashboard", (_req, res) => res.send("dashboard"))
      })
      const cookie = `${SALT}=some-database-session-token`
      const read = await request(a).get("/read").set("Cookie", cookie)
      expect(read.body).toEqual({ session: null })
      expect(logger.errors).toHaveLength(1)
      const api = await request(a).get("/dashboard").set("Cookie", cookie).set("Accept", "application/json")
      expect(api.status).toBe(401)
      const browser = await request(a).get("/dashboard").set("Cookie", cookie).set("Accept", "text/html")
      expect(browser.status).toBe(302)
    })
  })

  it("A4: auth(handler) does not call the handler when authorized returns false", async () => {
    const handler = jest.fn((_req, res) => res.send("ran"))
    const a = build(authConfig({ callbacks: { authorized: () => false } }), (app, { auth }) => {
      app.get("/report", auth(handler))
    })
    const res = await request(a)
      .get("/report")
      .set("Cookie", await sessionCookie())
    expect(res.status).toBe(403)
    expect(handler).toHaveBeenCalledTimes(0)
  })

  it("auth(handler) hands the session over on req.auth; without authorized every request reaches it", async () => {
    const a = build(authConfig(), (app, { auth }) => {
      app.get(
        "/me",
        auth((req, res) => res.json({ name: req.auth?.user?.name ?? null })),
      )
    })
    expect((await request(a).get("/me")).body).toEqual({ name: null })
    expect(
      (
        await request(a)
          .get("/me")
          .set("Cookie", await sessionCookie())
      ).body,
    ).toEqual({ name: "Ada" })
  })

  it("auth() and the spec's forms without req work inside the request context; outside it they throw", async () => {
    let outside: unknown
    const a = build(authConfig(), (app, { auth }) => {
      app.use(auth)
      app.get("/me", async (_req, res) => {
        const session = await auth()
        res.json({ name: session?.user?.name ?? null })
      })
    })
    const res = await request(a)
      .get("/me")
      .set("Cookie", await sessionCookie())
    expect(res.body).toEqual({ name: "Ada" })
    const { auth: detached } = Gatehouse(authConfig())
    try {
      await detached()
    } catch (error) {
      outside = error
    }
    expect(outside).toBeInstanceOf(MissingRequestContext)
  })

  it("A.3 rule 7: identity is never read back from req.auth / req.user set by other middleware", async () => {
    const a = build(authConfig(), (app, { requireAuth }) => {
      app.use((req, _res, next) => {
        req.auth = { user: { name: "Mallory" }, expires: "2999-01-01T00:00:00.000Z" }
        req.user = { name: "Mallory" }
        next()
      })
      app.get("/dashboard", requireAuth(), (_req, res) => res.send("dashboard"))
    })
    const res = await request(a).get("/dashboard").set("Accept", "application/json")
    expect(res.status).toBe(401)
  })

  it("A.3 rule 5: a refresh after the headers were sent logs session-cookie-not-written once", async () => {
    fakeDateOnly(NOW)
    const logger = testLogger()
    const a = build(authConfig({ logger }), (app, { auth }) => {
      app.get("/late", (req, res) => {
        res.write("started")
        void auth(req, res).then((session) => res.end(` ${session?.user?.name}`))
      })
    })
    const res = await request(a)
      .get("/late")
      .set("Cookie", await sessionCookie(2 * DAY))
    expect(res.text).toBe("started Ada")
    expect(logger.warnings.filter((w) => w === "session-cookie-not-written")).toHaveLength(1)
  })

  // The lazy-config cache is framework-independent: one Express version is enough for its 1,150 requests.
  if (name === "Express 5")
    it("A13: a lazy config returning the same object resolves once; new objects warn once past 100", async () => {
      const logger = testLogger()
      const stable = authConfig({ debug: true, logger })
      const gh = Gatehouse(() => stable)
      const a = express()
      a.get("/me", async (req, res) => res.json({ session: await gh.auth(req, res) }))
      const server = a.listen(0, "127.0.0.1")
      try {
        await new Promise((resolve) => server.once("listening", resolve))
        const { port } = server.address() as AddressInfo
        for (let i = 0; i < 1000; i++) await fetch(`http://127.0.0.1:${port}/me`).then((r) => r.arrayBuffer())
      } finally {
        server.close()
      }
      expect(logger.warnings.filter((w) => w === "debug-enabled")).toHaveLength(1)

      const unstableLogger = testLogger()
      const unstable = Gatehouse(() => authConfig({ logger: unstableLogger }))
      const b = express()
      b.get("/me", async (req, res) => res.json({ session: await unstable.auth(req, res) }))
      for (let i = 0; i < 100; i++) await request(b).get("/me")
      expect(unstableLogger.warnings).not.toContain("lazy-config-unstable")
      for (let i = 0; i < 50; i++) await request(b).get("/me")
      expect(unstableLogger.warnings.filter((w) => w === "lazy-config-unstable")).toHaveLength(1)
      // It still works, session and all.
      const res = await request(b)
        .get("/me")
        .set("Cookie", await sessionCookie())
      expect(res.body.session.user.name).toBe("Ada")
    })

  it("two Gatehouse() instances in one process share no state (mount path, sessions)", async () => {
    // AUTH_URL's origin only: a path in it would have to match the mount (one of the two below could not).
    process.env.AUTH_URL = "http://localhost:3000"
    const config = authConfig()
    const one = Gatehouse(config)
    const two = Gatehouse(config)
    const a = express()
    a.use("/one/auth", one.handlers)
    a.use("/two/auth", two.handlers)
    a.get("/dash-one", one.requireAuth(), (_req, res) => res.send("one"))
    a.get("/dash-two", two.requireAuth(), (_req, res) => res.send("two"))
    a.use(onError)
    expect((await request(a).get("/one/auth/csrf")).status).toBe(200)
    expect((await request(a).get("/two/auth/csrf")).status).toBe(200)
    const first = await request(a).get("/dash-one").set("Accept", "text/html")
    const second = await request(a).get("/dash-two").set("Accept", "text/html")
    expect(first.headers.location).toMatch(/^\/one\/auth\/signin\?/)
    expect(second.headers.location).toMatch(/^\/two\/auth\/signin\?/)
    process.env.AUTH_URL = "http://localhost:3000/auth"
  })
})

describe.each(versions)("req.auth, req.user and req.isAuthenticated() on %s", (_name, express: ExpressFactory) => {
  it("are set by every reading form, and isAuthenticated() is false where no session was read", async () => {
    const config = authConfig()
    const gh = Gatehouse(config)
    const a = express()
    const view = (req: ExpressRequest, res: ExpressResponse) =>
      res.json({
        auth: req.auth?.user?.name ?? null,
        user: req.user?.name ?? null,
        locals: (res.locals.session as { user?: { name?: string } } | null | undefined)?.user?.name ?? null,
        authenticated: req.isAuthenticated(),
      })
    a.get("/plain", view)
    a.get("/read", async (req, res) => {
      await gh.auth(req, res)
      view(req, res)
    })
    a.get("/legacy", async (req, res) => {
      await getSession(req, config)
      view(req, res)
    })
    a.get("/wrapped", gh.auth(view))
    a.get("/required", gh.requireAuth(), view)
    a.get("/middleware", gh.auth, view)
    const cookie = await sessionCookie()
    const signedIn = { auth: "Ada", user: "Ada", locals: "Ada", authenticated: true }
    for (const path of ["/read", "/legacy", "/wrapped", "/required", "/middleware"]) {
      expect((await request(a).get(path).set("Cookie", cookie)).body).toEqual(signedIn)
    }
    const plain = await request(a).get("/plain").set("Cookie", cookie)
    expect(plain.body).toEqual({ auth: null, user: null, locals: null, authenticated: false })
    const anonymous = await request(a).get("/read")
    expect(anonymous.body).toEqual({ auth: null, user: null, locals: null, authenticated: false })
  })
})

describe("handlers", () => {
  it("handlers.fetch(request) answers a Web Request like the mounted handler", async () => {
    const { handlers } = Gatehouse(authConfig())
    const providers = await handlers.fetch(new Request("http://localhost:3000/auth/providers"))
    expect(providers.status).toBe(200)
    expect((await providers.json()).credentials.signinUrl).toBe("http://localhost:3000/auth/signin/credentials")
    const session = await handlers.fetch(new Request("http://localhost:3000/auth/session"))
    expect(await session.json()).toBeNull()
  })
})

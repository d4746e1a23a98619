import request from "supertest"
import cookieParser from "cookie-parser"
import type { ErrorRequestHandler } from "express"
import { ExpressAuth, getSession, requireAuth } from "../../lib"
import { MissingSecret, InvalidConfig } from "../../lib/errors"
import Credentials from "../../lib/providers/credentials"
import { authConfig, cookieHeader, cookieJar, signIn, versions } from "./apps"

describe.each(versions)("%s", (_name, express) => {
  function app(
    config = authConfig(),
    mount: (a: ReturnType<typeof express>) => void = (a) => a.use("/auth", ExpressAuth(config)),
  ) {
    const a = express()
    mount(a)
    a.get("/", async (req, res) => {
      const session = await getSession(req, config)
      res.json({ session, again: (await getSession(req, config)) === session })
    })
    a.get("/protected", requireAuth(config), (req, res) => {
      res.json({ locals: res.locals.session, user: req.user, authenticated: req.isAuthenticated() })
    })
    const onError: ErrorRequestHandler = (err, _req, res, _next) => {
      res.status((err as { status?: number }).status ?? 500).json({ error: (err as Error).message })
    }
    a.use(onError)
    return a
  }

  /** A credentials form POST with the CSRF token of a fresh `/auth/csrf`, as a browser sends it. */
  async function postCredentials(a: ReturnType<typeof app>, path: string, fields: Record<string, string>) {
    const csrf = await request(a).get("/auth/csrf")
    const csrfToken = csrf.body.csrfToken as string
    const res = await request(a)
      .post(path)
      .set("Cookie", cookieHeader(cookieJar({}, csrf.headers["set-cookie"])))
      .set("User-Agent", "gatehouse-test/1")
      .type("form")
      .send({ csrfToken, ...fields })
    return { res, csrfToken }
  }

  it("login flow: GET /signin sets the CSRF and callback-url cookies; credentials sign-in sets the session (18.20)", async () => {
    const a = app()
    const page = await request(a).get("/auth/signin")
    expect(page.status).toBe(200)
    const names = (page.headers["set-cookie"] as unknown as string[]).map((c) => c.split("=")[0])
    expect(names).toEqual(["authjs.csrf-token", "authjs.callback-url"])
    const jar = await signIn(a)
    expect(jar["authjs.session-token"]).toBeTruthy()
    const home = await request(a).get("/").set("Cookie", cookieHeader(jar))
    expect(home.body.session.user).toEqual({ name: "Ada", email: "ada@x.test" })
    expect(home.body.again).toBe(true)
  })

  it("GET /auth/session with a session cookie and a Host no origin can be made from: 400, no cookie, no crash", async () => {
    // A request without a body is read with no wait: its bad Host is refused synchronously inside the handler, and
    // must still reach the error handler as a 400 (never a 500, an unhandled rejection, or a session answer).
    const a = app()
    const jar = await signIn(a)
    for (const host of ["bad host", "evil.example/x", "a@evil.example"]) {
      const res = await request(a).get("/auth/session").set("Host", host).set("Cookie", cookieHeader(jar))
      expect(res.status).toBe(400)
      expect(res.headers["set-cookie"]).toBeUndefined()
      expect(res.body).toEqual({ error: "Invalid Host header" })
    }
    const good = await request(a).get("/auth/session").set("Cookie", cookieHeader(jar))
    expect(good.body.user).toEqual({ name: "Ada", email: "ada@x.test" })
  })

  it.each([
    [
      "/auth",
      (a: ReturnType<typeof express>, c: ReturnType<typeof authConfig>) => a.use("/auth", ExpressAuth(c)),
      "/auth",
    ],
    [
      "/api/auth",
      (a: ReturnType<typeof express>, c: ReturnType<typeof authConfig>) => a.use("/api/auth", ExpressAuth(c)),
      "/api/auth",
    ],
    [
      "a Router at /v1 + /auth",
      (a: ReturnType<typeof express>, c: ReturnType<typeof authConfig>) => {
        const router = express.Router()
        router.use("/auth", ExpressAuth(c))
        a.use("/v1", router)
      },
      "/v1/auth",
    ],
  ])("mounted at %s: basePath follows the mount", async (_label, mount, base) => {
    const config = authConfig()
    const a = app(config, (x) => mount(x, config))
    const res = await request(a).get(`${base}/providers`)
    expect(res.status).toBe(200)
    expect(res.body.credentials.signinUrl).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:\\d+${base}/signin/credentials$`),
    )
    const jar = await signIn(a, base)
    const me = await request(a).get("/protected").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
    expect(me.status).toBe(200)
  })

  if (_name === "Express 4") {
    it("the Express 4 wildcard form app.use('/auth/*') works", async () => {
      const config = authConfig()
      const a = app(config, (x) => x.use("/auth/*", ExpressAuth(config)))
      const res = await request(a).get("/auth/providers")
      expect(res.body.credentials.callbackUrl).toMatch(/\/auth\/callback\/credentials$/)
      const jar = await signIn(a)
      expect(jar["authjs.session-token"]).toBeTruthy()
    })
  }

  it("an explicit basePath that disagrees with the mount is a clear error", async () => {
    const config = authConfig({ basePath: "/other" })
    const a = app(config)
    const res = await request(a).get("/auth/session")
    expect(res.status).toBe(500)
    expect(res.body.error).toBe("config.basePath does not match where ExpressAuth is mounted")
  })

  it("an AUTH_URL path that disagrees with the mount is the same clear error, naming both paths", async () => {
    process.env.AUTH_URL = "http://localhost:3000/api/auth"
    try {
      const config = authConfig()
      const a = app(config)
      const res = await request(a).get("/auth/session")
      expect(res.status).toBe(500)
      expect(res.body.error).toBe(
        "AUTH_URL's path (/api/auth) does not match where the auth handlers are mounted (/auth): mount them there, " +
          "or set AUTH_URL to the app's origin only (its path is only the mount path)",
      )
      // Where they agree, or AUTH_URL has no path, the mount is the base path.
      const agreeing = authConfig()
      const b = app(agreeing, (x) => x.use("/api/auth", ExpressAuth(agreeing)))
      expect((await request(b).get("/api/auth/providers")).body.credentials.signinUrl).toBe(
        "http://localhost:3000/api/auth/signin/credentials",
      )
      process.env.AUTH_URL = "http://localhost:3000/"
      const root = authConfig()
      const c = app(root)
      expect((await request(c).get("/auth/providers")).body.credentials.signinUrl).toBe(
        "http://localhost:3000/auth/signin/credentials",
      )
    } finally {
      delete process.env.AUTH_URL
    }
  })

  it("config errors are thrown when ExpressAuth(config) is called", () => {
    const prev = process.env.NODE_ENV
    process.env.NODE_ENV = "production"
    try {
      expect(() => ExpressAuth({ ...authConfig(), secret: undefined })).toThrow(MissingSecret)
    } finally {
      process.env.NODE_ENV = prev
    }
    expect(() => ExpressAuth(authConfig({ session: { maxAge: -5 } }))).toThrow(InvalidConfig)
  })

  it("works whether or not the app parsed the body first (json and urlencoded)", async () => {
    const config = authConfig()
    const parsed = express()
    parsed.use(express.json(), express.urlencoded({ extended: true }))
    parsed.use("/auth", ExpressAuth(config))
    for (const a of [parsed, app(config)]) {
      const csrf = await request(a).get("/auth/csrf")
      const jar = cookieJar({}, csrf.headers["set-cookie"])
      const asJson = await request(a)
        .post("/auth/callback/credentials")
        .set("Cookie", cookieHeader(jar))
        .send({ csrfToken: csrf.body.csrfToken, username: "ada", password: "pw" })
      expect(asJson.status).toBe(302)
      expect(cookieJar({}, asJson.headers["set-cookie"])["authjs.session-token"]).toBeTruthy()
    }
  })

  it("authorize(credentials, request) gets a Web Request of the sign-in: URL, method, headers, fields as JSON", async () => {
    const seen: { url?: string; method?: string; agent?: string | null; type?: string | null; body?: unknown } = {}
    const config = authConfig({
      providers: [
        Credentials({
          authorize: async (c, req) => {
            Object.assign(seen, {
              url: req.url,
              method: req.method,
              agent: req.headers.get("user-agent"),
              type: req.headers.get("content-type"),
              body: await req.json(),
            })
            return c.username === "ada" ? { id: "u1", name: "Ada" } : null
          },
        }),
      ],
    })
    const { res, csrfToken } = await postCredentials(app(config), "/auth/callback/credentials?from=test", {
      username: "ada",
      password: "pw",
    })
    expect(res.status).toBe(302)
    expect(seen.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\/callback\/credentials\?from=test$/)
    expect(seen.method).toBe("POST")
    expect(seen.agent).toBe("gatehouse-test/1")
    expect(seen.type).toBe("application/json")
    expect(seen.body).toEqual({ csrfToken, username: "ada", password: "pw" })
  })

  it("a body over the limit gets 413 and nothing else happens", async () => {
    let authorizeCalls = 0
    const config = authConfig()
    const a = express()
    a.use(
      "/auth",
      ExpressAuth({
        ...config,
        bodyLimit: 1000,
        providers: [...config.providers.map((p) => p)],
        callbacks: {
          signIn: () => {
            authorizeCalls++
            return true
          },
        },
      }),
    )
    a.use(((err, _req, res, _next) => res.status(err.status).json({ status: err.status })) as ErrorRequestHandler)
    const res = await request(a)
      .post("/auth/callback/credentials")
      .type("form")
      .send({ username: "ada", password: "pw", padding: "x".repeat(5000) })
    expect(res.status).toBe(413)
    expect(res.headers["set-cookie"]).toBeUndefined()
    expect(authorizeCalls).toBe(0)
  })

  it("a body within bodyLimit but over the core's 1 MB cap is refused with 400 and nothing else happens", async () => {
    let authorizeCalls = 0
    const config = authConfig({
      bodyLimit: 4 * 1024 * 1024,
      providers: [
        Credentials({
          authorize: () => {
            authorizeCalls++
            return { id: "u1" }
          },
        }),
      ],
    } as Partial<ReturnType<typeof authConfig>>)
    const { res } = await postCredentials(app(config), "/auth/callback/credentials", {
      username: "ada",
      password: "pw",
      padding: "x".repeat(1100 * 1024),
    })
    expect(res.status).toBe(400)
    expect(cookieJar({}, res.headers["set-cookie"])["authjs.session-token"]).toBeUndefined()
    expect(authorizeCalls).toBe(0)
  })

  it("many different Host headers each get their own origin (the origin cache never mixes them up)", async () => {
    const a = app()
    const hosts = Array.from({ length: 300 }, (_, i) => `h${i}.example:${3000 + (i % 7)}`)
    for (const host of [...hosts, hosts[0]!, hosts[299]!]) {
      const res = await request(a).get("/auth/providers").set("Host", host)
      expect(res.body.credentials.signinUrl).toBe(`http://${host}/auth/signin/credentials`)
    }
    // A default port is dropped, and a host the origin rule refuses still gets 400.
    const defaultPort = await request(a).get("/auth/providers").set("Host", "H1.Example:80")
    expect(defaultPort.body.credentials.signinUrl).toBe("http://h1.example/auth/signin/credentials")
    expect((await request(a).get("/auth/providers").set("Host", "evil.example/x")).status).toBe(400)
  })

  it("multiple Set-Cookie headers arrive separately", async () => {
    const res = await request(app()).get("/auth/csrf")
    expect(res.headers["set-cookie"]).toHaveLength(2)
  })

  it("forged Host / X-Forwarded-Host do not change generated URLs when trust proxy is off", async () => {
    const res = await request(app())
      .get("/auth/providers")
      .set("X-Forwarded-Host", "evil.example")
      .set("X-Forwarded-Proto", "https")
    expect(res.body.credentials.signinUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\//)
  })

  it("with trust proxy on, X-Forwarded-Proto/Host are honoured (and cookies become __Secure-)", async () => {
    const config = authConfig()
    const a = express()
    a.set("trust proxy", true)
    a.use("/auth", ExpressAuth(config))
    const res = await request(a)
      .get("/auth/csrf")
      .set("X-Forwarded-Host", "app.example")
      .set("X-Forwarded-Proto", "https")
    const names = (res.headers["set-cookie"] as unknown as string[]).map((c) => c.split("=")[0])
    expect(names).toEqual(["__Host-authjs.csrf-token", "__Secure-authjs.callback-url"])
    expect(decodeURIComponent(cookieJar({}, res.headers["set-cookie"])["__Secure-authjs.callback-url"]!)).toBe(
      "https://app.example",
    )
  })

  it("AUTH_URL fixes the origin: a forged Host cannot change generated URLs", async () => {
    process.env.AUTH_URL = "https://public.example/auth"
    try {
      const config = authConfig()
      const a = app(config)
      const res = await request(a).get("/auth/providers").set("Host", "evil.example")
      expect(res.body.credentials.signinUrl).toBe("https://public.example/auth/signin/credentials")
    } finally {
      delete process.env.AUTH_URL
    }
  })

  it("a throw inside an action becomes an error redirect, not a crash", async () => {
    const config = authConfig({
      callbacks: {
        redirect: () => {
          throw new Error("redirect callback broke")
        },
      },
    })
    const a = app(config)
    const res = await request(a).get("/auth/signin?callbackUrl=/x")
    // A throw inside an action is handled by the core (an error redirect), not passed to next().
    expect(res.status).toBe(302)
    expect(res.headers.location).toMatch(/\/auth\/error\?error=Configuration$/)
  })

  it("works with cookie-parser, leaving the app's signed cookies alone", async () => {
    const config = authConfig()
    const a = express()
    a.use(cookieParser("app-cookie-secret"))
    a.get("/set", (_req, res) => {
      res.cookie("app", "value", { signed: true })
      res.send("ok")
    })
    a.use("/auth", ExpressAuth(config))
    a.get("/read", requireAuth(config), (req, res) => res.json({ app: req.signedCookies.app, user: req.user?.name }))
    const set = await request(a).get("/set")
    let jar = cookieJar({}, set.headers["set-cookie"])
    jar = { ...jar, ...(await signIn(a)) }
    const read = await request(a).get("/read").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
    expect(read.body).toEqual({ app: "value", user: "Ada" })
  })
})

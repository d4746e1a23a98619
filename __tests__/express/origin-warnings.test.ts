/**
 * Issue 29, items 6 and 7: warnings about where a request arrived, each once per config. In development, a request at
 * another origin than AUTH_URL's (every link and redirect would point elsewhere); without AUTH_URL, forwarded headers
 * that Express's `trust proxy` ignores (behind an https proxy the app would build http URLs and lose `__Secure-`).
 */
import request from "supertest"
import { Gatehouse } from "../../lib"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { authConfig, versions, type ExpressFactory } from "./apps"

const saved = { AUTH_URL: process.env.AUTH_URL, NODE_ENV: process.env.NODE_ENV }
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

function recording(): { config: AuthConfig; warnings: { code: string; message: string }[] } {
  const warnings: { code: string; message: string }[] = []
  const config = authConfig({
    logger: {
      error: () => {},
      debug: () => {},
      warn: (code, message) => void warnings.push({ code, message: message! }),
    },
  })
  return { config, warnings }
}

describe.each(versions)("origin warnings on %s", (_name, express: ExpressFactory) => {
  function appOf(config: AuthConfig, trustProxy = false) {
    const gh = Gatehouse(config)
    const a = express()
    if (trustProxy) a.set("trust proxy", 1)
    a.use("/auth", gh.handlers)
    a.get("/", gh.auth, (req, res) => res.json({ signedIn: req.isAuthenticated() }))
    return a
  }

  it("in development, a request at another origin than AUTH_URL's warns once, naming both origins", async () => {
    process.env.NODE_ENV = "development"
    process.env.AUTH_URL = "http://localhost:9999"
    const { config, warnings } = recording()
    const a = appOf(config)
    await request(a).get("/auth/providers").set("Host", "127.0.0.1:4330")
    await request(a).get("/").set("Host", "127.0.0.1:4330")
    await request(a).get("/auth/signin").set("Host", "127.0.0.1:4330")
    expect(warnings).toEqual([
      {
        code: "auth-url-origin-mismatch",
        message:
          "This request reached the app at http://127.0.0.1:4330, but AUTH_URL is http://localhost:9999: every link " +
          "and redirect goes to http://localhost:9999. Set AUTH_URL to where the app runs (or leave it unset in " +
          "development).",
      },
    ])
  })

  it("a session read alone (app.use(auth)) is enough to warn", async () => {
    process.env.NODE_ENV = "development"
    process.env.AUTH_URL = "http://localhost:9999"
    const { config, warnings } = recording()
    await request(appOf(config)).get("/").set("Host", "127.0.0.1:4330")
    expect(warnings.map((w) => w.code)).toEqual(["auth-url-origin-mismatch"])
  })

  it.each([
    ["the same origin in development", "development", "localhost:9999"],
    ["another origin in production (a proxy or a load balancer may stand in front)", "production", "10.0.0.7:3000"],
    ["another origin under test", "test", "127.0.0.1:4330"],
  ])("no origin warning for %s", async (_case, env, host) => {
    process.env.NODE_ENV = env
    process.env.AUTH_URL = "http://localhost:9999"
    const { config, warnings } = recording()
    const a = appOf(config)
    await request(a).get("/auth/providers").set("Host", host)
    await request(a).get("/").set("Host", host)
    expect(warnings).toEqual([])
  })

  it("without AUTH_URL, forwarded headers that trust proxy ignores warn once (in production too)", async () => {
    delete process.env.AUTH_URL
    process.env.NODE_ENV = "production"
    const { config, warnings } = recording()
    const a = appOf(config)
    const providers = await request(a)
      .get("/auth/providers")
      .set("Host", "127.0.0.1:3000")
      .set("X-Forwarded-Proto", "https")
      .set("X-Forwarded-Host", "app.example.com")
    // What the warning is about: the forwarded headers did not count.
    expect(providers.body.credentials.signinUrl).toBe("http://127.0.0.1:3000/auth/signin/credentials")
    await request(a).get("/").set("Host", "127.0.0.1:3000").set("X-Forwarded-Proto", "https")
    expect(warnings).toEqual([
      {
        code: "forwarded-headers-ignored",
        message:
          "X-Forwarded-Proto and X-Forwarded-Host arrived but Express's `trust proxy` does not trust the sender, so " +
          "URLs use http://127.0.0.1:3000 and cookies have no __Secure- prefix. Behind a proxy, set " +
          'app.set("trust proxy", 1) (the number of proxies), or AUTH_URL.',
      },
    ])
  })

  it("no forwarded-headers warning with trust proxy on, with AUTH_URL set, or without such headers", async () => {
    delete process.env.AUTH_URL
    process.env.NODE_ENV = "production"
    const trusted = recording()
    const behindProxy = await request(appOf(trusted.config, true))
      .get("/auth/providers")
      .set("X-Forwarded-Proto", "https")
      .set("X-Forwarded-Host", "app.example.com")
    expect(behindProxy.body.credentials.signinUrl).toBe("https://app.example.com/auth/signin/credentials")
    const plain = recording()
    await request(appOf(plain.config)).get("/auth/providers").set("Host", "127.0.0.1:3000")
    process.env.AUTH_URL = "https://app.example.com"
    const pinned = recording()
    await request(appOf(pinned.config)).get("/auth/providers").set("X-Forwarded-Proto", "https")
    expect([...trusted.warnings, ...plain.warnings, ...pinned.warnings]).toEqual([])
  })
})

describe.each(versions)("req.isAuthenticated() on a request Gatehouse never read, on %s", (_name, express) => {
  function appOf(config: AuthConfig) {
    const gh = Gatehouse(config)
    const a = express()
    a.use("/auth", gh.handlers)
    // Passport's habit: no global app.use(auth), so this route is never read by Gatehouse.
    a.get("/unread", (req, res) => res.json({ signedIn: req.isAuthenticated() }))
    a.get("/read", gh.auth, (req, res) => res.json({ signedIn: req.isAuthenticated() }))
    return a
  }

  it("in development, warns once that it answers false there and that app.use(auth) is missing", async () => {
    process.env.NODE_ENV = "development"
    const { config, warnings } = recording()
    const a = appOf(config)
    await request(a).get("/auth/providers")
    expect((await request(a).get("/unread")).body).toEqual({ signedIn: false })
    await request(a).get("/unread")
    expect(warnings).toEqual([
      {
        code: "is-authenticated-unread",
        message:
          "req.isAuthenticated() was called on a request Gatehouse never read, so it answers false even for a " +
          "signed-in user: put app.use(auth) before your routes (it is what passport.session() was).",
      },
    ])
  })

  it("no warning where Gatehouse read the request (signed out too), nor outside development", async () => {
    process.env.NODE_ENV = "development"
    const read = recording()
    const a = appOf(read.config)
    expect((await request(a).get("/read")).body).toEqual({ signedIn: false })
    expect(read.warnings).toEqual([])
    process.env.NODE_ENV = "production"
    const production = recording()
    const b = appOf(production.config)
    await request(b).get("/auth/providers")
    await request(b).get("/unread")
    expect(production.warnings).toEqual([])
  })
})

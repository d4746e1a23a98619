/**
 * The identity authority of the Express layer: one origin rule, one resolved config and one recorded mount path
 * shared by ExpressAuth, getSession and requireAuth (issue 10 bugs 1 and 2, issue 11 HP-11 and HP-08).
 */
import request from "supertest"
import type { ErrorRequestHandler, Express } from "express"
import { ExpressAuth, getSession, requireAuth } from "../../lib"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import OIDC from "../../lib/providers/oidc"
import { authConfig, cookieHeader, signIn, versions, type ExpressFactory } from "./apps"

const onError: ErrorRequestHandler = (err, _req, res, _next) => {
  res.status((err as { status?: number }).status ?? 500).json({ error: (err as Error).message })
}

/** A config whose logger counts resolutions: each one with `debug: true` warns `debug-enabled` once. */
function countingConfig(overrides: Partial<AuthConfig> = {}) {
  const warnings: string[] = []
  const config = authConfig({
    debug: true,
    logger: { error: () => {}, warn: (code) => void warnings.push(code), debug: () => {} },
    ...overrides,
  })
  const resolutions = () => warnings.filter((w) => w === "debug-enabled").length
  return { config, warnings, resolutions }
}

describe.each(versions)("identity authority on %s", (name, express: ExpressFactory) => {
  function mountedApp(config: AuthConfig, mount: (a: Express) => void, trustProxy = false): Express {
    const a = express()
    if (trustProxy) a.set("trust proxy", true)
    mount(a)
    a.get("/dashboard", requireAuth(config), (_req, res) => res.send("dashboard"))
    a.get("/whoami", async (req, res) => res.json({ session: await getSession(req, config) }))
    a.use(onError)
    return a
  }

  it("bug 1: requireAuth sends browsers to <mount>/signin (app.use('/api/auth')), not /auth/signin", async () => {
    const config = authConfig()
    const a = mountedApp(config, (x) => x.use("/api/auth", ExpressAuth(config)))
    // The handler learns its mount path from the first request it serves.
    expect((await request(a).get("/api/auth/providers")).status).toBe(200)
    const res = await request(a).get("/dashboard").set("Accept", "text/html")
    expect(res.status).toBe(302)
    const location = new URL(res.headers.location!, "http://h")
    expect(location.pathname).toBe("/api/auth/signin")
    // The page it points to exists.
    const page = await request(a).get(location.pathname + location.search)
    expect(page.status).toBe(200)
  })

  it("bug 1: with an explicit basePath, requireAuth uses it before any request reached the handler", async () => {
    const config = authConfig({ basePath: "/api/auth" })
    const a = mountedApp(config, (x) => x.use("/api/auth", ExpressAuth(config)))
    const res = await request(a).get("/dashboard").set("Accept", "text/html")
    expect(new URL(res.headers.location!, "http://h").pathname).toBe("/api/auth/signin")
  })

  it("before any request reached the handler, requireAuth falls back to the path of AUTH_URL", async () => {
    process.env.AUTH_URL = "http://localhost:3000/api/auth"
    try {
      const config = authConfig()
      const a = mountedApp(config, (x) => x.use("/api/auth", ExpressAuth(config)))
      const res = await request(a).get("/dashboard").set("Accept", "text/html")
      expect(new URL(res.headers.location!, "http://h").pathname).toBe("/api/auth/signin")
    } finally {
      delete process.env.AUTH_URL
    }
  })

  it("bug 1: behind trust proxy, requireAuth's callbackUrl uses the forwarded origin, as the core does", async () => {
    const config = authConfig()
    const a = mountedApp(config, (x) => x.use("/auth", ExpressAuth(config)), true)
    const providers = await request(a)
      .get("/auth/providers")
      .set("X-Forwarded-Host", "app.example.com")
      .set("X-Forwarded-Proto", "https")
    expect(providers.body.credentials.signinUrl).toBe("https://app.example.com/auth/signin/credentials")
    const res = await request(a)
      .get("/dashboard?tab=1")
      .set("Accept", "text/html")
      .set("X-Forwarded-Host", "app.example.com")
      .set("X-Forwarded-Proto", "https")
    expect(res.status).toBe(302)
    const callbackUrl = new URL(res.headers.location!, "http://h").searchParams.get("callbackUrl")
    expect(callbackUrl).toBe("https://app.example.com/dashboard?tab=1")
  })

  it("ExpressAuth, getSession and requireAuth resolve the same config object once", async () => {
    const { config, resolutions } = countingConfig()
    const a = mountedApp(config, (x) => x.use("/auth", ExpressAuth(config)))
    const jar = await signIn(a)
    const me = await request(a).get("/whoami").set("Cookie", cookieHeader(jar))
    expect(me.body.session.user.name).toBe("Ada")
    const dash = await request(a).get("/dashboard").set("Cookie", cookieHeader(jar))
    expect(dash.text).toBe("dashboard")
    expect(resolutions()).toBe(1)
  })

  it("the first mount wins: the same handler answered under another base is a clear error", async () => {
    const config = authConfig()
    const handler = ExpressAuth(config)
    const a = mountedApp(config, (x) => {
      x.use("/auth", handler)
      x.use("/other/auth", handler)
    })
    expect((await request(a).get("/auth/providers")).status).toBe(200)
    const res = await request(a).get("/other/auth/providers")
    expect(res.status).toBe(500)
    expect(res.body.error).toMatch(/already mounted at another path/)
    // The first mount keeps working and its URLs are unchanged.
    const again = await request(a).get("/auth/providers")
    expect(again.body.credentials.signinUrl).toMatch(/\/auth\/signin\/credentials$/)
  })

  if (name === "Express 4") {
    describe("HP-11: the Express 4 wildcard mount app.use('/auth/*')", () => {
      it("bug 2: invented prefixes neither resolve a new config nor answer as if auth lived there", async () => {
        const { config, resolutions } = countingConfig()
        const a = mountedApp(config, (x) => x.use("/auth/*", ExpressAuth(config)))
        expect((await request(a).get("/auth/providers")).status).toBe(200)
        for (const prefix of ["x1", "x2", "a/b/c"]) {
          const res = await request(a).get(`/auth/${prefix}/providers`)
          expect(res.status).toBe(400)
          expect(JSON.stringify(res.body)).not.toContain(prefix)
        }
        expect(resolutions()).toBe(1)
        const jar = await signIn(a)
        expect(jar["authjs.session-token"]).toBeTruthy()
      })

      it("an invented prefix on the very first request does not become the base", async () => {
        const config = authConfig()
        const a = mountedApp(config, (x) => x.use("/auth/*", ExpressAuth(config)))
        expect((await request(a).get("/auth/evil/providers")).status).toBe(400)
        const res = await request(a).get("/auth/providers")
        expect(res.body.credentials.signinUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\/signin\/credentials$/)
      })

      describe("the opt-in and Gatehouse-only rows of the route table are actions too", () => {
        function optInApp() {
          const adapter = MemoryAdapter()
          const { config, warnings } = countingConfig({
            adapter,
            session: { strategy: "database" },
            features: { sessionRoutes: true, passkeyRoutes: true },
          })
          config.providers = [
            ...config.providers,
            // Never contacted: every request below is refused or answered before discovery.
            OIDC({
              id: "corp",
              issuer: "https://sso.example.test",
              clientId: "app",
              clientSecret: "s3cret-0123456789",
              logout: { rpInitiated: true, backchannel: true },
            }),
          ]
          return { a: mountedApp(config, (x) => x.use("/auth/*", ExpressAuth(config))), warnings }
        }

        it("signout-callback/:provider: a bad state lands on the app origin (the first request sets the base)", async () => {
          const { a, warnings } = optInApp()
          const res = await request(a).get("/auth/signout-callback/corp?state=not-a-jwe")
          expect(res.status).toBe(302)
          expect(res.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
          expect(warnings).toContain("signout-state-invalid")
          const providers = await request(a).get("/auth/providers")
          expect(providers.body.credentials.signinUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\/signin\/credentials$/)
        })

        it("backchannel-logout/:provider answers in the OAuth JSON error form, no-store", async () => {
          const { a } = optInApp()
          const res = await request(a).post("/auth/backchannel-logout/corp").type("form").send({})
          expect(res.status).toBe(400)
          expect(res.headers["cache-control"]).toBe("no-store")
          expect(res.body).toEqual({
            error: "invalid_request",
            error_description: "exactly one logout_token is required",
          })
          const get = await request(a).get("/auth/backchannel-logout/corp")
          expect(get.status).toBe(400)
          expect(get.body.error).toBe("invalid_request")
        })

        it("sessions and sessions/revoke, passkeys and passkeys/rename reach their handlers", async () => {
          const { a } = optInApp()
          expect((await request(a).get("/auth/sessions")).body).toBeNull()
          const jar = await signIn(a)
          const listed = await request(a).get("/auth/sessions").set("Cookie", cookieHeader(jar))
          expect(listed.status).toBe(200)
          expect(listed.body).toEqual([expect.objectContaining({ current: true })])
          const revoke = await request(a)
            .post("/auth/sessions/revoke")
            .set("Cookie", cookieHeader(jar))
            .type("form")
            .send({})
          expect(revoke.status).toBe(403) // the handler's CSRF rule, not "Bad request."
          expect(revoke.body).toEqual({ error: "MissingCSRF" })
          const rename = await request(a)
            .post("/auth/passkeys/rename")
            .set("Cookie", cookieHeader(jar))
            .type("form")
            .send({})
          expect(rename.status).toBe(403)
          expect(rename.body).toEqual({ error: "MissingCSRF" })
        })
      })

      it.each([
        ["a backslash prefix", "/auth/x%5Cy/providers", {}],
        ["a raw backslash prefix", "/auth/x\\y/providers", {}],
        ["an extra prefix with an explicit basePath", "/auth/x1/providers", { basePath: "/auth" }],
        ["a backslash prefix with an explicit basePath", "/auth/x\\y/providers", { basePath: "/auth" }],
      ])("%s never answers 500", async (_label, path, overrides) => {
        const config = authConfig(overrides)
        const a = mountedApp(config, (x) => x.use("/auth/*", ExpressAuth(config)))
        const res = await request(a).get(path)
        expect(res.status).toBe(400)
        expect((await request(a).get("/auth/providers")).status).toBe(200)
      })
    })
  }

  it("HP-08: requireAuth with callbacks.authorized and a Host new URL() rejects answers 400", async () => {
    const authorized = jest.fn(() => true)
    const config = authConfig({ callbacks: { authorized } })
    const a = mountedApp(config, (x) => x.use("/auth", ExpressAuth(config)))
    const jar = await signIn(a)
    for (const host of ["[", "a b"]) {
      const res = await request(a).get("/dashboard").set("Host", host).set("Cookie", cookieHeader(jar))
      expect(res.status).toBe(400)
    }
    expect(authorized).not.toHaveBeenCalled()
  })
})

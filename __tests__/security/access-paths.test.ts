// The deny rule (`app.use(auth)` with `callbacks.authorized`) decides on the path Express routes. IN-03a: dot
// segments, raw or percent-encoded, made the guard resolve `/admin/panel/../../auth/signin` to an exempt auth route
// while Express served the admin area. IN-03b: Express routes case-insensitively, so `/ADMIN` reached
// `app.get("/admin")` while `authorized` saw `/ADMIN`. Both on Express 4 and 5, over real HTTP with raw targets.
import type { Express, Request as ExpressRequest, Response as ExpressResponse } from "express"
import { Gatehouse } from "../../lib"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { authConfig, versions, type ExpressFactory } from "../express/apps"
import { listen, rawRequest, type RawServer } from "../fixtures/raw-http"

interface Seen {
  url: string
  pathname: string
}

/** The README's admin rule: `/admin` and below only with a session. Records what `authorized` was asked about. */
function adminApp(express: ExpressFactory, settings: Record<string, boolean> = {}, config: Partial<AuthConfig> = {}) {
  const seen: Seen[] = []
  const gh = Gatehouse(
    authConfig({
      callbacks: {
        authorized: ({ auth, request }) => {
          seen.push({ url: request.url, pathname: request.nextUrl.pathname })
          return !request.nextUrl.pathname.startsWith("/admin") || Boolean(auth)
        },
      },
      ...config,
    }),
  )
  const app: Express = express()
  for (const [name, value] of Object.entries(settings)) app.set(name, value)
  app.use(gh.auth)
  app.use("/auth", gh.handlers)
  app.use("/admin/panel", (req: ExpressRequest, res: ExpressResponse) => res.send(`admin panel ${req.url}`))
  app.get("/admin", (_req: ExpressRequest, res: ExpressResponse) => res.send("admin home"))
  app.get("/login", (_req: ExpressRequest, res: ExpressResponse) => res.send("login page"))
  app.use((_req: ExpressRequest, res: ExpressResponse) => res.status(404).send("not found"))
  return { app, seen }
}

const api = { accept: "application/json" }

beforeAll(() => {
  process.env.AUTH_URL = "http://localhost:3000/auth"
})
afterAll(() => {
  delete process.env.AUTH_URL
})

describe.each(versions)("%s", (_name, express) => {
  let server: RawServer
  let seen: Seen[]

  afterEach(async () => {
    await server?.close()
  })

  async function start(settings?: Record<string, boolean>, config?: Partial<AuthConfig>) {
    const built = adminApp(express, settings, config)
    server = await listen(built.app)
    seen = built.seen
  }

  describe("IN-03a", () => {
    it.each([
      "/admin/panel/../../auth/signin",
      "/admin/panel/%2e%2e/%2e%2e/auth/signin",
      "/admin/panel/%2E%2e/%2e%2E/auth/signin",
      "/admin/panel/.%2e/.%2e/auth/signin",
      "/admin/panel/%2e./%2e./auth/signin",
      "/admin/panel/x/../../../auth/csrf",
      "/admin/panel/./x",
      "/admin/panel/%2e/x",
      "/admin/panel/x\\..\\..\\..\\auth\\signin",
      "/auth/../admin/panel",
      "/auth/%2e%2e/admin",
    ])("an anonymous %s is refused with 400, and the admin area is never reached", async (target) => {
      await start()
      const answer = await rawRequest(server, target, { headers: api })
      expect(answer.status).toBe(400)
      expect(answer.body).not.toContain("admin")
      expect(seen).toEqual([])
    })

    it("a dot segment inside a query or an encoded slash is not a path segment: the path is decided as routed", async () => {
      await start()
      const query = await rawRequest(server, "/admin/panel?next=../../auth/signin", { headers: api })
      expect(query.status).toBe(401)
      const slash = await rawRequest(server, "/admin/panel/%2e%2e%2f%2e%2e%2fauth%2fsignin", { headers: api })
      expect(slash.status).toBe(401)
      expect(seen.map((s) => s.pathname)).toEqual(["/admin/panel", "/admin/panel/..%2f..%2fauth%2fsignin"])
    })

    it("a fragment or an absolute-form target with a backslash in its authority is refused", async () => {
      await start()
      expect((await rawRequest(server, "/admin/panel#/../../auth/signin", { headers: api })).status).toBe(400)
      expect((await rawRequest(server, "http://x\\admin/panel", { headers: api })).status).toBe(400)
      expect(seen).toEqual([])
    })

    it("an absolute-form target is decided on its path, as Express routes it", async () => {
      await start()
      const answer = await rawRequest(server, "http://elsewhere.example/admin/panel/x", { headers: api })
      expect(answer.status).toBe(401)
      expect(seen.map((s) => s.pathname)).toEqual(["/admin/panel/x"])
    })

    it("the auth routes and plain paths still work: the sign-in page without authorized, the admin area denied", async () => {
      await start()
      expect((await rawRequest(server, "/auth/signin")).status).toBe(200)
      expect(seen).toEqual([])
      expect((await rawRequest(server, "/admin/panel/settings", { headers: api })).status).toBe(401)
      expect((await rawRequest(server, "/public", { headers: api })).status).toBe(404)
      expect(seen.map((s) => s.pathname)).toEqual(["/admin/panel/settings", "/public"])
    })
  })

  describe("IN-03b", () => {
    it.each([
      ["/ADMIN", "/admin"],
      ["/Admin/", "/admin"],
      ["/aDmIn/panel/x", "/admin/panel/x"],
      ["/ADMIN/PANEL", "/admin/panel"],
      ["/%61dmin", "/admin"],
      ["/%41DMIN/%70anel", "/admin/panel"],
    ])("%s reaches authorized as %s (default routing) and is denied", async (target, canonical) => {
      await start()
      const answer = await rawRequest(server, target, { headers: api })
      expect(answer.status).toBe(401)
      expect(answer.body).not.toContain("admin")
      // The callback gets the path Express routes, folded; the client's spelling stays in `request.url`.
      expect(seen).toEqual([{ url: `http://localhost:3000${target}`, pathname: canonical }])
    })

    it("with case-sensitive and strict routing the path keeps its case and trailing slash, as Express routes it", async () => {
      await start({ "case sensitive routing": true, "strict routing": true })
      const upper = await rawRequest(server, "/ADMIN", { headers: api })
      // Express routes /ADMIN nowhere under case-sensitive routing, and the callback allowed it as not /admin.
      expect(upper.status).toBe(404)
      const slash = await rawRequest(server, "/admin/", { headers: api })
      expect(slash.status).toBe(401)
      expect(seen.map((s) => s.pathname)).toEqual(["/ADMIN", "/admin/"])
    })

    it("under case-sensitive routing /AUTH/signin is not an auth route: authorized decides", async () => {
      await start({ "case sensitive routing": true })
      await rawRequest(server, "/AUTH/signin", { headers: api })
      await rawRequest(server, "/auth/signin", { headers: api })
      expect(seen.map((s) => s.pathname)).toEqual(["/AUTH/signin"])
    })
  })
})

// Found by mutating the code: a bare-prefix exemption (`startsWith`) and an `undefined` that lets requests through
// both passed every test. The exemption covers the requests the auth handlers serve and the configured pages, by name.
describe.each(versions)("the authorized exemption and answers on %s", (_name, express) => {
  let server: RawServer

  afterEach(async () => {
    await server?.close()
  })

  async function withAuthorized(authorized: NonNullable<NonNullable<AuthConfig["callbacks"]>["authorized"]>) {
    const calls: string[] = []
    const gh = Gatehouse(
      authConfig({
        pages: { signIn: "/login" },
        callbacks: {
          authorized: (params) => {
            calls.push(params.request.nextUrl.pathname)
            return authorized(params)
          },
        },
      }),
    )
    const app: Express = express()
    app.use(gh.auth)
    app.use("/auth", gh.handlers)
    app.use((_req: ExpressRequest, res: ExpressResponse) => res.send("app"))
    server = await listen(app)
    return calls
  }

  it.each([
    "/authx",
    "/auth-admin",
    "/AUTHX",
    "/login-admin",
    "/login/admin",
    "/auth/administer",
    "/AUTH-admin/x",
    "/%61uth/session",
  ])("%s is not exempt: authorized is asked and denies", async (path) => {
    const calls = await withAuthorized(() => false)
    const answer = await rawRequest(server, path, { headers: api })
    expect(answer.status).toBe(401)
    expect(calls).toHaveLength(1)
  })

  it.each(["/auth", "/auth/", "/auth/session", "/auth/signin", "/AUTH/csrf", "/login", "/login/", "/LOGIN"])(
    "%s skips authorized",
    async (path) => {
      const calls = await withAuthorized(() => false)
      const answer = await rawRequest(server, path, { headers: api })
      expect(answer.status).not.toBe(401)
      expect(calls).toEqual([])
    },
  )

  it.each([
    { label: "undefined", verdict: undefined, status: 401 },
    { label: "null", verdict: null, status: 401 },
    { label: "false", verdict: false, status: 401 },
    { label: "0", verdict: 0, status: 401 },
    { label: "true", verdict: true, status: 200 },
  ])("authorized returning $label answers $status", async ({ verdict, status }) => {
    const calls = await withAuthorized(() => verdict as boolean | undefined)
    const answer = await rawRequest(server, "/dashboard", { headers: api })
    expect(answer.status).toBe(status)
    if (status === 200) expect(answer.body).toBe("app")
    else expect(JSON.parse(answer.body)).toEqual({ error: "Unauthorized" })
    expect(calls).toEqual(["/dashboard"])
  })

  it("authorized returning a Response sends it as it is", async () => {
    await withAuthorized(() => Response.json({ custom: true }, { status: 418 }))
    const answer = await rawRequest(server, "/dashboard", { headers: api })
    expect(answer.status).toBe(418)
    expect(JSON.parse(answer.body)).toEqual({ custom: true })
  })
})

/**
 * `Gatehouse(config)` from `gatehouse-auth/web`: next-wave A.4 rows A1-A15 where they apply to the Fetch flavour,
 * served through `node:http` and through Hono.
 */
import { get } from "node:http"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { hashSessionToken } from "../../lib/core/session/token"
import { decode, encode } from "../../lib/jwt"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import GitHub from "../../lib/providers/github"
import { CredentialsSignin, Gatehouse, MissingCSRF, MissingRequestContext, type WebGatehouse } from "../../lib/web"
import { fakeDateOnly } from "../fixtures/clock"
import { testLogger, type TestLogger } from "../core/helpers"
import { servers, type Routes, type Served } from "./servers"

const APP = "http://localhost:3000"
const SECRET = "web-test-secret-0123456789abcdef0123"
const SALT = "authjs.session-token"
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0)
const DAY = 24 * 60 * 60
/** A browser navigation. */
const BROWSER = { accept: "text/html", "sec-fetch-mode": "navigate" }

beforeAll(() => {
  process.env.AUTH_URL = `${APP}/auth`
})
afterAll(() => {
  delete process.env.AUTH_URL
})
afterEach(() => {
  jest.useRealTimers()
})

function config(overrides: Partial<AuthConfig> = {}): AuthConfig & { logger: TestLogger } {
  return {
    secret: SECRET,
    trustHost: true,
    logger: testLogger(),
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) => (c.username === "ada" && c.password === "pw" ? { id: "u1", name: "Ada" } : null),
      }),
      GitHub({ clientId: "gh-id", clientSecret: "gh-secret" }),
    ],
    ...overrides,
  } as AuthConfig & { logger: TestLogger }
}

async function sessionCookie(ageSeconds = 0): Promise<string> {
  const now = Date.now()
  if (ageSeconds > 0) jest.setSystemTime(now - ageSeconds * 1000)
  const token = await encode({ token: { name: "Ada", sub: "u1" }, secret: SECRET, salt: SALT })
  if (ageSeconds > 0) jest.setSystemTime(now)
  return `${SALT}=${token}`
}

/** A GET as a browser navigation sends it (fetch() forces `Sec-Fetch-Mode: cors`, which reads as an API client). */
function browserGet(url: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    get(url, { headers: BROWSER }, (res) => {
      const chunks: Buffer[] = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const headers = new Headers()
        for (const [k, v] of Object.entries(res.headers)) {
          for (const item of Array.isArray(v) ? v : v === undefined ? [] : [v]) headers.append(k, item)
        }
        resolve(
          new Response(res.statusCode === 302 ? null : Buffer.concat(chunks), { status: res.statusCode, headers }),
        )
      })
    }).on("error", reject)
  })
}

function cookieValue(response: Response, name: string): string | undefined {
  const line = response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))
  return line?.slice(name.length + 1).split(";")[0]
}

describe.each(servers)("Fetch flavour through %s", (_name, serveWith) => {
  let served: Served | undefined
  afterEach(async () => {
    await served?.close()
    served = undefined
  })

  async function start(gh: WebGatehouse, routes: (gh: WebGatehouse) => Routes) {
    served = await serveWith(gh, routes(gh))
    return (path: string, init: RequestInit = {}) =>
      init.headers === BROWSER
        ? browserGet(`${served!.url}${path}`)
        : fetch(`${served!.url}${path}`, { redirect: "manual", ...init })
  }

  it("A1: auth(request) is null without a cookie (0 Set-Cookie); an old cookie is refreshed exactly once", async () => {
    fakeDateOnly(NOW)
    const get = await start(Gatehouse(config()), ({ auth, applyCookies }) => ({
      "/me": async (request) => {
        const first = await auth(request)
        const second = await auth(request)
        return applyCookies(request, Response.json({ same: first === second, name: first?.user?.name ?? null }))
      },
    }))
    const none = await get("/me")
    expect(await none.json()).toEqual({ same: true, name: null })
    expect(none.headers.getSetCookie()).toHaveLength(0)
    const res = await get("/me", { headers: { cookie: await sessionCookie(2 * DAY) } })
    expect(await res.json()).toEqual({ same: true, name: "Ada" })
    expect(res.headers.getSetCookie().filter((c) => c.startsWith(`${SALT}=`))).toHaveLength(1)
    const payload = await decode({ token: cookieValue(res, SALT)!, secret: SECRET, salt: SALT })
    expect(payload?.iat).toBe(Math.floor(NOW / 1000))
  })

  it("A2: auth(handler) keeps the handler's Set-Cookie and adds the refreshed session cookie", async () => {
    fakeDateOnly(NOW)
    const get = await start(Gatehouse(config()), ({ auth }) => ({
      "/wrapped": auth(async () => new Response("ok", { headers: { "set-cookie": "a=1" } })),
    }))
    const res = await get("/wrapped", { headers: { cookie: await sessionCookie(2 * DAY) } })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe("ok")
    const cookies = res.headers.getSetCookie()
    expect(cookies).toHaveLength(2)
    expect(cookies[0]).toBe("a=1")
    expect(cookies[1]!.startsWith(`${SALT}=`)).toBe(true)
  })

  describe("auth(handler) with callbacks.authorized", () => {
    async function guarded(authorized: NonNullable<AuthConfig["callbacks"]>["authorized"]) {
      const handler = jest.fn(async () => new Response("dashboard"))
      const cfg = config({ callbacks: { authorized } })
      const get = await start(Gatehouse(cfg), ({ auth }) => ({ "/dashboard": auth(handler) }))
      return { get, handler, logger: cfg.logger }
    }

    it("A3: browser → 302 to sign-in, API client → 401 JSON, signed in but refused → 403", async () => {
      const { get, handler } = await guarded(({ auth }) => !!auth)
      const browser = await get("/dashboard", { headers: BROWSER })
      expect(browser.status).toBe(302)
      expect(browser.headers.get("location")).toBe("/auth/signin?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fdashboard")
      const api = await get("/dashboard", { headers: { accept: "application/json" } })
      expect(api.status).toBe(401)
      expect(await api.json()).toEqual({ error: "Unauthorized" })
      expect(handler).toHaveBeenCalledTimes(0)
    })

    it("A4: a signed-in request refused by authorized gets 403 and the handler is not called", async () => {
      const { get, handler } = await guarded(() => false)
      const res = await get("/dashboard", { headers: { cookie: await sessionCookie(), accept: "text/html" } })
      expect(res.status).toBe(403)
      expect(handler).toHaveBeenCalledTimes(0)
    })

    it("A5: a redirect to the current URL is handled as false, with one loop warning", async () => {
      const { get, logger } = await guarded(() => Response.redirect(`${APP}/dashboard`))
      const res = await get("/dashboard", { headers: BROWSER })
      expect(res.status).toBe(302)
      expect(res.headers.get("location")).toBe("/auth/signin?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fdashboard")
      expect(logger.warnings.filter((w) => w === "authorized-redirect-loop")).toHaveLength(1)
    })

    it("A6: the auth routes bypass authorized", async () => {
      const authorized = jest.fn(() => false)
      const { get } = await guarded(authorized)
      expect((await get("/auth/signin")).status).toBe(200)
      expect((await get("/auth/csrf")).status).toBe(200)
      expect(authorized).not.toHaveBeenCalled()
    })
  })

  it("A7: signIn(request, 'github', {redirectTo}, {login_hint}) answers 302 to GitHub with PKCE cookies", async () => {
    const get = await start(Gatehouse(config()), ({ signIn }) => ({
      "/login/github": (request) => signIn(request, "github", { redirectTo: "/app" }, { login_hint: "a@b.c" }),
    }))
    const res = await get("/login/github")
    expect(res.status).toBe(302)
    const location = res.headers.get("location")!
    expect(location.startsWith("https://github.com/login/oauth/authorize?")).toBe(true)
    expect(location).toContain("code_challenge_method=S256")
    expect(location).toContain("login_hint=a%40b.c")
    expect(location).toContain("redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fauth%2Fcallback%2Fgithub")
    expect(cookieValue(res, "authjs.pkce.code_verifier")).toBeTruthy()
    expect(decodeURIComponent(cookieValue(res, "authjs.callback-url")!)).toBe(`${APP}/app`)
  })

  describe("credentials sign-in, sign-out and update", () => {
    const errors: unknown[] = []
    async function app(cfg = config()) {
      errors.length = 0
      const authorize = jest.fn((c: Partial<Record<string, unknown>>) =>
        c.username === "ada" && c.password === "pw" ? { id: "u1", name: "Ada" } : null,
      )
      const signInEvent = jest.fn()
      const gh = Gatehouse({
        ...cfg,
        providers: [Credentials({ credentials: { username: {}, password: {} }, authorize })],
        events: { signIn: signInEvent, ...cfg.events },
      })
      const guard = (fn: (request: Request) => Promise<Response>) => async (request: Request) => {
        try {
          return await fn(request)
        } catch (error) {
          errors.push(error)
          return Response.json({ type: (error as { type?: string }).type }, { status: 418 })
        }
      }
      const post = await start(gh, ({ signIn, signOut, unstable_update, applyCookies }) => ({
        "/login": guard(async (request) => {
          const { redirectTo, ...fields } = Object.fromEntries(await request.formData()) as Record<string, string>
          return signIn(request, "credentials", { ...fields, redirectTo })
        }),
        "/logout": guard((request) => signOut(request)),
        "/profile": guard(async (request) => {
          const session = await unstable_update(request, { user: { name: "Bea" } })
          return applyCookies(request, Response.json({ session }))
        }),
      }))
      const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams(fields).toString(),
      })
      return { post, form, authorize, signInEvent, gh }
    }

    it("A8: a same-origin POST signs in: 303 to redirectTo, a session cookie, one signIn event", async () => {
      const { post, form, signInEvent } = await app()
      const res = await post("/login", form({ username: "ada", password: "pw", redirectTo: "/app" }, { origin: APP }))
      expect(res.status).toBe(303)
      expect(res.headers.get("location")).toBe(`${APP}/app`)
      expect(cookieValue(res, SALT)).toBeTruthy()
      expect(signInEvent).toHaveBeenCalledTimes(1)
    })

    it("A9: a cross-site POST throws MissingCSRF; authorize is not called; no Set-Cookie", async () => {
      const { post, form, authorize } = await app()
      const res = await post(
        "/login",
        form({ username: "ada", password: "pw" }, { origin: "https://evil.example", "sec-fetch-site": "cross-site" }),
      )
      expect(res.status).toBe(418)
      expect(errors[0]).toBeInstanceOf(MissingCSRF)
      expect(authorize).toHaveBeenCalledTimes(0)
      expect(res.headers.getSetCookie()).toHaveLength(0)
    })

    it("A10: rejected credentials throw CredentialsSignin (code 'credentials'); an off-origin target lands home", async () => {
      const { post, form } = await app()
      const bad = await post("/login", form({ username: "ada", password: "x" }, { origin: APP }))
      expect(bad.status).toBe(418)
      expect(errors[0]).toBeInstanceOf(CredentialsSignin)
      expect((errors[0] as CredentialsSignin).code).toBe("credentials")
      expect(bad.headers.getSetCookie()).toHaveLength(0)
      const evil = await post(
        "/login",
        form({ username: "ada", password: "pw", redirectTo: "https://evil.example/x" }, { origin: APP }),
      )
      expect(evil.headers.get("location")).toBe(APP)
    })

    it("A11: database signOut deletes the session, clears the cookie, fires signOut once, goes home", async () => {
      const adapter = MemoryAdapter()
      const signOutEvent = jest.fn()
      const { post, form } = await app(
        config({ adapter, session: { strategy: "database" }, events: { signOut: signOutEvent } }),
      )
      const login = await post("/login", form({ username: "ada", password: "pw" }, { origin: APP }))
      const token = cookieValue(login, SALT)!
      expect(await adapter.getSessionAndUser(hashSessionToken(token))).not.toBeNull()
      const res = await post("/logout", { method: "POST", headers: { origin: APP, cookie: `${SALT}=${token}` } })
      expect(res.status).toBe(303)
      expect(res.headers.get("location")).toBe(APP)
      expect(await adapter.getSessionAndUser(hashSessionToken(token))).toBeNull()
      expect(res.headers.getSetCookie().find((c) => c.startsWith(`${SALT}=`))).toMatch(/Max-Age=0/i)
      expect(signOutEvent).toHaveBeenCalledTimes(1)
    })

    it("A12: unstable_update runs the jwt callback with trigger 'update'; the cookie carries the new name", async () => {
      const jwt = jest.fn(({ token, trigger, session }) =>
        trigger === "update" ? { ...token, name: (session as { user: { name: string } }).user.name } : token,
      )
      const { post } = await app(config({ callbacks: { jwt } }))
      const res = await post("/profile", { method: "POST", headers: { cookie: await sessionCookie() } })
      expect((await res.json()).session.user.name).toBe("Bea")
      expect(jwt).toHaveBeenCalledWith(expect.objectContaining({ trigger: "update" }))
      const payload = await decode({ token: cookieValue(res, SALT)!, secret: SECRET, salt: SALT })
      expect(payload?.name).toBe("Bea")
    })

    it("signIn with redirect: false answers 200 {url} with the cookies", async () => {
      const { gh } = await app()
      const request = new Request(`${APP}/login`, { method: "POST", headers: { origin: APP } })
      const res = await gh.signIn(request, "credentials", { username: "ada", password: "pw", redirect: false })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ url: APP })
      expect(cookieValue(res, SALT)).toBeTruthy()
    })
  })

  it("A15: an adapter that throws: auth(request) is null with one logged error; the wrapper denies, never 500", async () => {
    const adapter = MemoryAdapter()
    adapter.getSessionAndUser = () => Promise.reject(new Error("database down"))
    const cfg = config({ adapter, callbacks: { authorized: ({ auth }) => !!auth } })
    const gh = Gatehouse(cfg)
    const read = await gh.auth(new Request(`${APP}/x`, { headers: { cookie: `${SALT}=tok` } }))
    expect(read).toBeNull()
    expect(cfg.logger.errors).toHaveLength(1)
    const get = await start(gh, ({ auth }) => ({ "/dashboard": auth(async () => new Response("dashboard")) }))
    const res = await get("/dashboard", { headers: { cookie: `${SALT}=tok`, accept: "application/json" } })
    expect(res.status).toBe(401)
  })
})

describe("Fetch flavour without a server", () => {
  it("A14: handle() answers only under the base path; PUT on an action is 400 'Bad request.'", async () => {
    const gh = Gatehouse(config())
    expect(await gh.handle(new Request(`${APP}/api/x`))).toBeUndefined()
    const session = await gh.handle(new Request(`${APP}/auth/session`))
    expect(session?.status).toBe(200)
    const put = await gh.handle(new Request(`${APP}/auth/session`, { method: "PUT" }))
    expect(put?.status).toBe(400)
    expect(await put?.json()).toBe("Bad request.")
  })

  it("A13: a lazy config returning the same object resolves once; 100+ distinct objects warn once", async () => {
    const stable = config({ debug: true })
    const gh = Gatehouse(() => stable)
    for (let i = 0; i < 1000; i++) await gh.auth(new Request(`${APP}/x`))
    expect(stable.logger.warnings.filter((w) => w === "debug-enabled")).toHaveLength(1)
    const logger = testLogger()
    const unstable = Gatehouse(() => config({ logger }))
    for (let i = 0; i < 150; i++) await unstable.auth(new Request(`${APP}/x`))
    expect(logger.warnings.filter((w) => w === "lazy-config-unstable")).toHaveLength(1)
  })

  it("auth() needs runWithRequest; inside it, it reads the request's session", async () => {
    const gh = Gatehouse(config())
    expect(() => gh.auth()).toThrow(MissingRequestContext)
    const request = new Request(`${APP}/x`, { headers: { cookie: await sessionCookie() } })
    const session = await gh.runWithRequest(request, () => gh.auth())
    expect(session?.user?.name).toBe("Ada")
  })

  it("two instances share no state: a session read by one queues no cookie for the other", async () => {
    fakeDateOnly(NOW)
    const one = Gatehouse(config())
    const two = Gatehouse(config())
    const request = new Request(`${APP}/x`, { headers: { cookie: await sessionCookie(2 * DAY) } })
    await one.auth(request)
    expect(two.applyCookies(request, new Response("x")).headers.getSetCookie()).toHaveLength(0)
    expect(one.applyCookies(request, new Response("x")).headers.getSetCookie()).toHaveLength(1)
  })

  it("applyCookies copies a response whose headers are immutable", async () => {
    fakeDateOnly(NOW)
    const gh = Gatehouse(config())
    const request = new Request(`${APP}/x`, { headers: { cookie: await sessionCookie(2 * DAY) } })
    await gh.auth(request)
    const out = gh.applyCookies(request, Response.redirect(`${APP}/next`, 302))
    expect(out.status).toBe(302)
    expect(out.headers.get("location")).toBe(`${APP}/next`)
    expect(out.headers.getSetCookie()).toHaveLength(1)
  })
})

/**
 * `Gatehouse(config)` for Express, the server-side calls: next-wave A.4 rows A7-A12 and A.3 rules 1-3 (trusted calls
 * unreachable by HTTP, the origin guard, redirect targets). Errors are `AuthError`s and nothing is written then.
 */
import request from "supertest"
import type { ErrorRequestHandler, Express, Request, Response as ExpressResponse } from "express"
import { Gatehouse, type GatehouseInstance } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { hashSessionToken } from "../../lib/core/session/token"
import { AuthError, CredentialsSignin, InvalidProvider, MissingCSRF } from "../../lib/errors"
import { decode, encode } from "../../lib/jwt"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import GitHub from "../../lib/providers/github"
import { authConfig, cookieHeader, cookieJar, SECRET, versions, type ExpressFactory } from "./apps"

const APP = "http://localhost:3000"
const SALT = "authjs.session-token"

beforeAll(() => {
  process.env.AUTH_URL = `${APP}/auth`
})
afterAll(() => {
  delete process.env.AUTH_URL
})

/** Errors thrown by server calls come back as `{ type, code }` with status 418, so tests can see them. */
const onError: ErrorRequestHandler = (err, _req, res, _next) => {
  const e = err as AuthError & { code?: string }
  res.status(418).json({ type: e instanceof AuthError ? e.type : "other", code: e.code ?? null })
}

function setCookieList(header: string[] | string | undefined): string[] {
  return header === undefined ? [] : Array.isArray(header) ? header : [header]
}

describe.each(versions)("Gatehouse server calls on %s", (_name, express: ExpressFactory) => {
  function build(config: AuthConfig, routes: (a: Express, gh: GatehouseInstance) => void): Express {
    const gh = Gatehouse(config)
    const a = express()
    a.use(express.urlencoded({ extended: false }))
    routes(a, gh)
    a.use(onError)
    return a
  }

  function credentialsApp(overrides: Partial<AuthConfig> = {}) {
    const authorize = jest.fn((c: Partial<Record<string, unknown>>) =>
      c.username === "ada" && c.password === "pw" ? { id: "u1", name: "Ada", email: "ada@x.test" } : null,
    )
    const signInEvent = jest.fn()
    const config = authConfig({
      providers: [Credentials({ credentials: { username: {}, password: {} }, authorize })],
      events: { signIn: signInEvent },
      ...overrides,
    })
    const a = build(config, (app, { handlers, signIn }) => {
      app.use("/auth", handlers)
      app.post("/login", (req, res, next) => {
        const { redirectTo, ...fields } = req.body as Record<string, string>
        signIn(req, res, "credentials", { ...fields, redirectTo }).catch(next)
      })
    })
    return { a, authorize, signInEvent }
  }

  it("A7: signIn(req, res, 'github', {redirectTo}, {login_hint}) from a GET redirects to GitHub with PKCE", async () => {
    const config = authConfig({ providers: [GitHub({ clientId: "gh-id", clientSecret: "gh-secret" })] })
    const a = build(config, (app, { signIn }) => {
      app.get("/login/github", (req, res, next) =>
        signIn(req, res, "github", { redirectTo: "/app" }, { login_hint: "a@b.c" }).catch(next),
      )
    })
    const res = await request(a).get("/login/github")
    expect(res.status).toBe(302)
    const location = res.headers.location!
    expect(location.startsWith("https://github.com/login/oauth/authorize?")).toBe(true)
    expect(location).toContain("code_challenge_method=S256")
    expect(location).toContain("login_hint=a%40b.c")
    expect(location).toContain("redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fauth%2Fcallback%2Fgithub")
    const jar = cookieJar({}, res.headers["set-cookie"])
    expect(jar["authjs.pkce.code_verifier"]).toBeTruthy()
    expect(decodeURIComponent(jar["authjs.callback-url"]!)).toBe(`${APP}/app`)
  })

  it("A8: a same-origin POST signs in with credentials: 303 to redirectTo, a session cookie, one signIn event", async () => {
    const { a, signInEvent } = credentialsApp()
    const res = await request(a)
      .post("/login")
      .set("Origin", APP)
      .type("form")
      .send({ username: "ada", password: "pw", redirectTo: "/app" })
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe(`${APP}/app`)
    const jar = cookieJar({}, res.headers["set-cookie"])
    const payload = await decode({ token: jar[SALT]!, secret: SECRET, salt: SALT })
    expect(payload?.name).toBe("Ada")
    expect(signInEvent).toHaveBeenCalledTimes(1)
  })

  it.each([
    ["Sec-Fetch-Site: same-origin", { "Sec-Fetch-Site": "same-origin" }],
    ["Sec-Fetch-Site: none", { "Sec-Fetch-Site": "none" }],
  ])("the origin guard accepts %s", async (_label, headers) => {
    const { a } = credentialsApp()
    const res = await request(a).post("/login").set(headers).type("form").send({ username: "ada", password: "pw" })
    expect(res.status).toBe(303)
  })

  it("the origin guard accepts a double-submit csrfToken matching the CSRF cookie", async () => {
    const { a } = credentialsApp()
    const csrf = await request(a).get("/auth/csrf")
    const jar = cookieJar({}, csrf.headers["set-cookie"])
    const res = await request(a)
      .post("/login")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ username: "ada", password: "pw", csrfToken: csrf.body.csrfToken })
    expect(res.status).toBe(303)
  })

  it("A9: a cross-site POST throws MissingCSRF: authorize is not called and nothing is written", async () => {
    const { a, authorize } = credentialsApp()
    const res = await request(a)
      .post("/login")
      .set("Sec-Fetch-Site", "cross-site")
      .set("Origin", "https://evil.example")
      .type("form")
      .send({ username: "ada", password: "pw" })
    expect(res.status).toBe(418)
    expect(res.body.type).toBe("MissingCSRF")
    expect(authorize).toHaveBeenCalledTimes(0)
    expect(setCookieList(res.headers["set-cookie"])).toHaveLength(0)
  })

  it("credentials and signOut from a GET throw MissingCSRF (no state change on a safe method)", async () => {
    const errors: unknown[] = []
    const a = build(authConfig(), (app, { signIn, signOut }) => {
      const capture = (p: Promise<string>, res: ExpressResponse) =>
        p.catch((e: unknown) => {
          errors.push(e)
          res.send("refused")
        })
      app.get("/in", (req, res) => capture(signIn(req, res, "credentials", { username: "ada", password: "pw" }), res))
      app.get("/out", (req, res) => capture(signOut(req, res), res))
    })
    for (const path of ["/in", "/out"]) {
      const res = await request(a).get(path).set("Sec-Fetch-Site", "same-origin")
      expect(res.text).toBe("refused")
      expect(setCookieList(res.headers["set-cookie"])).toHaveLength(0)
    }
    expect(errors).toHaveLength(2)
    for (const e of errors) expect(e).toBeInstanceOf(MissingCSRF)
  })

  it("A10: rejected credentials throw CredentialsSignin (code 'credentials') and write nothing", async () => {
    const { a } = credentialsApp()
    const res = await request(a).post("/login").set("Origin", APP).type("form").send({ username: "ada", password: "x" })
    expect(res.status).toBe(418)
    expect(res.body).toEqual({ type: "CredentialsSignin", code: "credentials" })
    expect(setCookieList(res.headers["set-cookie"])).toHaveLength(0)
  })

  it("A10: a wrong password through server-side signIn() is a debug line, never an error-level log", async () => {
    const logged: { level: string; text: string }[] = []
    const logger = {
      error: (e: Error) => void logged.push({ level: "error", text: String(e) }),
      warn: (code: string) => void logged.push({ level: "warn", text: code }),
      debug: (text: string) => void logged.push({ level: "debug", text }),
    }
    const { a } = credentialsApp({ logger, debug: true })
    const res = await request(a).post("/login").set("Origin", APP).type("form").send({ username: "ada", password: "x" })
    expect(res.body).toEqual({ type: "CredentialsSignin", code: "credentials" })
    // The only line above debug is the notice that debug is on.
    expect(logged.filter((l) => l.level !== "debug")).toEqual([{ level: "warn", text: "debug-enabled" }])
    expect(logged.map((l) => l.text)).toContain('credentials sign-in rejected (code "credentials")')
  })

  it("A10: an off-origin redirectTo lands on the app origin", async () => {
    const { a } = credentialsApp()
    const res = await request(a)
      .post("/login")
      .set("Origin", APP)
      .type("form")
      .send({ username: "ada", password: "pw", redirectTo: "https://evil.example/x" })
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe(APP)
  })

  it("A.3 rule 3: a Referer from another origin is ignored as the default target", async () => {
    const { a } = credentialsApp()
    const res = await request(a)
      .post("/login")
      .set("Origin", APP)
      .set("Referer", "https://evil.example/page")
      .type("form")
      .send({ username: "ada", password: "pw" })
    expect(res.headers.location).toBe(APP)
  })

  it("A11: database signOut from a same-origin POST deletes the session, clears its cookie, fires signOut once", async () => {
    const adapter = MemoryAdapter()
    const signOutEvent = jest.fn()
    const config = authConfig({ adapter, session: { strategy: "database" }, events: { signOut: signOutEvent } })
    let returned: string | undefined
    const a = build(config, (app, { signIn, signOut }) => {
      app.post("/login", (req, res, next) =>
        signIn(req, res, "credentials", { username: "ada", password: "pw", redirect: false })
          .then((url) => res.json({ url }))
          .catch(next),
      )
      app.post("/logout", (req, res, next) =>
        signOut(req, res)
          .then((url) => void (returned = url))
          .catch(next),
      )
    })
    const login = await request(a).post("/login").set("Origin", APP)
    expect(login.body.url).toBe(APP)
    const token = cookieJar({}, login.headers["set-cookie"])[SALT]!
    // The row is keyed by the token's hash (tokens are hashed at rest).
    expect(await adapter.getSessionAndUser(hashSessionToken(token))).not.toBeNull()

    const res = await request(a).post("/logout").set("Origin", APP).set("Cookie", `${SALT}=${token}`)
    expect(res.status).toBe(303)
    expect(returned).toBe(APP)
    expect(res.headers.location).toBe(APP)
    expect(await adapter.getSessionAndUser(hashSessionToken(token))).toBeNull()
    const cleared = setCookieList(res.headers["set-cookie"]).filter((c) => c.startsWith(`${SALT}=`))
    expect(cleared).toHaveLength(1)
    expect(cleared[0]).toMatch(/Max-Age=0/i)
    expect(signOutEvent).toHaveBeenCalledTimes(1)
  })

  it("A12: unstable_update(req, res, data) runs the jwt callback with trigger 'update' and re-issues the cookie", async () => {
    const jwt = jest.fn(({ token, trigger, session }) =>
      trigger === "update" ? { ...token, name: (session as { user: { name: string } }).user.name } : token,
    )
    const config = authConfig({ callbacks: { jwt } })
    const a = build(config, (app, { unstable_update }) => {
      app.post("/profile", (req, res, next) =>
        unstable_update(req, res, { user: { name: "Bea" } })
          .then((session) => res.json({ session }))
          .catch(next),
      )
    })
    const none = await request(a).post("/profile")
    expect(none.body.session).toBeNull()
    expect(setCookieList(none.headers["set-cookie"])).toHaveLength(0)

    const token = await encode({ token: { name: "Ada", sub: "u1" }, secret: SECRET, salt: SALT })
    const res = await request(a).post("/profile").set("Cookie", `${SALT}=${token}`)
    expect(res.body.session.user.name).toBe("Bea")
    expect(jwt).toHaveBeenCalledWith(expect.objectContaining({ trigger: "update" }))
    const payload = await decode({
      token: cookieJar({}, res.headers["set-cookie"])[SALT]!,
      secret: SECRET,
      salt: SALT,
    })
    expect(payload?.name).toBe("Bea")
  })

  it("no provider, or an unknown one, answers the sign-in page URL (the unknown one with a warning)", async () => {
    const warnings: string[] = []
    const config = authConfig({ logger: { error: () => {}, warn: (c) => void warnings.push(c), debug: () => {} } })
    const urls: string[] = []
    const a = build(config, (app, { signIn }) => {
      app.get("/go/:id", (req: Request, res, next) => {
        const param = String(req.params.id)
        const id = param === "none" ? undefined : param
        signIn(req, res, id, { redirectTo: "/app", redirect: false })
          .then((url) => res.json({ url: urls[urls.push(url) - 1] }))
          .catch(next)
      })
    })
    await request(a).get("/go/none")
    await request(a).get("/go/nope")
    const expected = `${APP}/auth/signin?callbackUrl=${encodeURIComponent(`${APP}/app`)}`
    expect(urls).toEqual([expected, expected])
    expect(warnings.filter((w) => w === "signin-unknown-provider")).toHaveLength(1)
  })

  it("a webauthn provider throws InvalidProvider (passkey sign-in starts in the browser)", async () => {
    const config = authConfig({
      experimental: { enableWebAuthn: true },
      adapter: MemoryAdapter(),
      providers: [{ id: "webauthn", name: "Passkey", type: "webauthn" } as never],
    })
    let thrown: unknown
    const a = build(config, (app, { signIn }) => {
      app.post("/passkey", (req, res) =>
        signIn(req, res, "webauthn").catch((e: unknown) => {
          thrown = e
          res.send("no")
        }),
      )
    })
    const res = await request(a).post("/passkey").set("Origin", APP)
    expect(res.text).toBe("no")
    expect(thrown).toBeInstanceOf(InvalidProvider)
  })

  it("inside app.use(auth), signIn(provider, options) and signOut(options) need no req/res", async () => {
    const a = build(authConfig(), (app, { auth, signIn, signOut }) => {
      app.use(auth)
      app.post("/login", (_req, _res, next) => {
        signIn("credentials", { username: "ada", password: "pw", redirectTo: "/home" }).catch(next)
      })
      app.post("/logout", (_req, _res, next) => {
        signOut({ redirectTo: "/bye" }).catch(next)
      })
    })
    const login = await request(a).post("/login").set("Origin", APP)
    expect(login.status).toBe(303)
    expect(login.headers.location).toBe(`${APP}/home`)
    const jar = cookieJar({}, login.headers["set-cookie"])
    const logout = await request(a).post("/logout").set("Origin", APP).set("Cookie", cookieHeader(jar))
    expect(logout.headers.location).toBe(`${APP}/bye`)
  })

  it("A.3 rule 1: skipCSRFCheck-like fields or headers on an HTTP request still need the CSRF token", async () => {
    const { a, authorize } = credentialsApp()
    const res = await request(a)
      .post("/auth/callback/credentials")
      .set("X-Trusted-Call", "true")
      .set("X-Skip-CSRF-Check", "true")
      .type("form")
      .send({ username: "ada", password: "pw", trustedCall: "true", skipCSRFCheck: "true" })
    expect(res.status).toBe(302)
    expect(res.headers.location).toContain("error=MissingCSRF")
    expect(cookieJar({}, res.headers["set-cookie"])[SALT]).toBeUndefined()
    expect(authorize).toHaveBeenCalledTimes(0)
  })

  it("signIn with redirect: false writes the cookies and returns the URL without answering", async () => {
    const config = authConfig()
    const a = build(config, (app, { signIn }) => {
      app.post("/login", (req, res, next) =>
        signIn(req, res, "credentials", { username: "ada", password: "pw", redirect: false })
          .then((url) => res.json({ url, sent: res.headersSent }))
          .catch(next),
      )
    })
    const res = await request(a).post("/login").set("Origin", APP)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ url: APP, sent: false })
    expect(cookieJar({}, res.headers["set-cookie"])[SALT]).toBeTruthy()
  })

  it("server-side errors are AuthErrors", async () => {
    let thrown: unknown
    const a = build(authConfig(), (app, { signIn }) => {
      app.post("/login", (req, res) =>
        signIn(req, res, "credentials", { username: "ada", password: "wrong" }).catch((e: unknown) => {
          thrown = e
          res.send("x")
        }),
      )
    })
    await request(a).post("/login").set("Origin", APP)
    expect(thrown).toBeInstanceOf(CredentialsSignin)
    expect(thrown).toBeInstanceOf(AuthError)
  })
})

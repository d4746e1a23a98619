// tokens.md T1: bearer sessions. A session token handed to a client in JSON (X-Auth-Return-Token), read through the one
// door wherever a session cookie counts, deciding over the cookie, and signed out by the bearer itself.
import express from "express"
import type { Express, Request, Response } from "express"
import request from "supertest"
import { Gatehouse, type GatehouseInstance } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { decode } from "../../lib/jwt"
import Credentials from "../../lib/providers/credentials"
import { SECRET, cookieHeader, cookieJar } from "../express/apps"

const quiet = { error: () => undefined, warn: () => undefined, debug: () => undefined }

interface App {
  app: Express
  gatehouse: GatehouseInstance
  signOutEvents: unknown[]
  signInEvents: unknown[]
}

export function tokenApp(options: { strategy?: "jwt" | "database"; bearer?: boolean; adapter?: Adapter } = {}): App {
  const signOutEvents: unknown[] = []
  const signInEvents: unknown[] = []
  const strategy = options.strategy ?? "jwt"
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    ...(strategy === "database" ? { adapter: options.adapter ?? MemoryAdapter() } : {}),
    session: { strategy, bearer: options.bearer ?? true },
    logger: quiet,
    events: {
      signOut: (message) => void signOutEvents.push(message),
      signIn: (message) => void signInEvents.push(message),
    },
    callbacks: {
      jwt: ({ token, session, trigger }) =>
        trigger === "update" && session && typeof session === "object" && "name" in session
          ? { ...token, name: (session as { name: string }).name }
          : token,
    },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) =>
          (c.username === "alice" || c.username === "bob") && c.password === `${c.username}-pw`
            ? { id: `user-${c.username}`, name: c.username, email: `${c.username}@example.test` }
            : null,
      }),
    ],
  }
  const gatehouse = Gatehouse(config)
  const app = express()
  app.use(express.json())
  app.use("/auth", gatehouse.handlers)
  app.get("/api/me", gatehouse.requireAuth(), (req: Request, res: Response) => void res.json(req.auth))
  app.get(
    "/api/handler",
    gatehouse.auth((req: Request, res: Response) => {
      if (!req.auth) return void res.status(401).json({ error: "Unauthorized" })
      res.json(req.auth)
    }),
  )
  app.post("/api/logout", (req: Request, res: Response) => {
    gatehouse.signOut(req, res, { redirect: false }).then(
      (url) => void res.json({ url }),
      (error: unknown) => void res.status(403).json({ error: (error as { type?: string }).type }),
    )
  })
  return { app, gatehouse, signOutEvents, signInEvents }
}

export async function tokenSignIn(app: Express, username: string): Promise<{ token: string; expires: number }> {
  const res = await request(app)
    .post("/auth/callback/credentials")
    .set("X-Auth-Return-Token", "1")
    .send({ username, password: `${username}-pw` })
  if (res.status !== 200) throw new Error(`token sign-in failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { token: string; expires: number }
}

async function cookieSignIn(app: Express, username: string): Promise<Record<string, string>> {
  const csrf = await request(app).get("/auth/csrf")
  const jar = cookieJar({}, csrf.headers["set-cookie"])
  const res = await request(app)
    .post("/auth/callback/credentials")
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, username, password: `${username}-pw` })
  if (res.status !== 302) throw new Error(`sign-in failed: ${res.status}`)
  return cookieJar(jar, res.headers["set-cookie"])
}

const setCookies = (res: request.Response): string[] => {
  const value = res.headers["set-cookie"] as unknown
  return Array.isArray(value) ? (value as string[]) : value === undefined ? [] : [String(value)]
}

describe("tokens T1: bearer sessions", () => {
  test("T1-1 token sign-in: JSON token, no cookie, no CSRF; the bearer reads alice; a wrong password is a JSON 401", async () => {
    const { app, signInEvents } = tokenApp()
    const before = Math.floor(Date.now() / 1000)
    const res = await request(app)
      .post("/auth/callback/credentials")
      .set("X-Auth-Return-Token", "1")
      .send({ username: "alice", password: "alice-pw" })
    expect(res.status).toBe(200)
    expect(res.headers["cache-control"]).toContain("no-store")
    expect(res.headers["pragma"]).toBe("no-cache")
    expect(setCookies(res)).toHaveLength(0)
    expect(typeof res.body.token).toBe("string")
    expect(typeof res.body.expires).toBe("number")
    expect(Math.abs(res.body.expires - (before + 30 * 24 * 3600))).toBeLessThan(10)
    expect(signInEvents).toHaveLength(1)
    const session = await request(app).get("/auth/session").set("Authorization", `Bearer ${res.body.token}`)
    expect(session.status).toBe(200)
    expect(session.body.user.name).toBe("alice")

    const wrong = await request(app)
      .post("/auth/callback/credentials")
      .set("X-Auth-Return-Token", "1")
      .send({ username: "alice", password: "nope" })
    expect(wrong.status).toBe(401)
    expect(wrong.body).toEqual({ error: "CredentialsSignin", code: "credentials" })
    expect(setCookies(wrong)).toHaveLength(0)
    expect(wrong.headers["cache-control"]).toContain("no-store")
  })

  test("T1-1 form bodies are accepted too; a missing field is refused without a cookie", async () => {
    const { app } = tokenApp()
    const form = await request(app)
      .post("/auth/callback/credentials")
      .set("X-Auth-Return-Token", "1")
      .type("form")
      .send({ username: "bob", password: "bob-pw" })
    expect(form.status).toBe(200)
    expect(typeof form.body.token).toBe("string")
    const missing = await request(app).post("/auth/callback/credentials").set("X-Auth-Return-Token", "1").send({})
    expect(missing.status).toBe(401)
    expect(setCookies(missing)).toHaveLength(0)
  })

  test("T1-2 database strategy: an opaque token whose row holds only its hash; the bearer reads alice", async () => {
    const adapter = MemoryAdapter()
    const { app } = tokenApp({ strategy: "database", adapter })
    const { token, expires } = await tokenSignIn(app, "alice")
    expect(token.split(".")).toHaveLength(1)
    expect(expires).toBeGreaterThan(Date.now() / 1000)
    expect(await adapter.getSessionAndUser!(token)).toBeNull()
    const session = await request(app).get("/auth/session").set("Authorization", `Bearer ${token}`)
    expect(session.body.user.name).toBe("alice")
    expect(setCookies(session)).toHaveLength(0)
    expect(session.headers["x-auth-token"]).toBeUndefined()
  })

  test("T1-3 requireAuth and auth(handler): a bearer passes; a garbage bearer is a 401 with a challenge; a browser is redirected", async () => {
    const { app } = tokenApp()
    const { token } = await tokenSignIn(app, "alice")
    for (const path of ["/api/me", "/api/handler"]) {
      const ok = await request(app).get(path).set("Authorization", `Bearer ${token}`)
      expect(ok.status).toBe(200)
      expect(ok.body.user.name).toBe("alice")
    }
    const garbage = await request(app)
      .get("/api/me")
      .set("Authorization", "Bearer garbage.token")
      .set("Accept", "text/html")
    expect(garbage.status).toBe(401)
    expect(garbage.body).toEqual({ error: "Unauthorized" })
    expect(garbage.headers["www-authenticate"]).toBe('Bearer error="invalid_token"')
    const malformed = await request(app).get("/api/me").set("Authorization", "Bearer a b")
    expect(malformed.status).toBe(401)
    expect(malformed.headers["www-authenticate"]).toBe('Bearer error="invalid_token"')
    const browser = await request(app).get("/api/me").set("Accept", "text/html")
    expect(browser.status).toBe(302)
    expect(browser.headers.location).toContain("/auth/signin?callbackUrl=")
  })

  test("T1-4 precedence: the bearer decides, an invalid one never falls back, and with bearer off the cookie counts", async () => {
    const { app } = tokenApp()
    const alice = await cookieSignIn(app, "alice")
    const bob = await tokenSignIn(app, "bob")
    const both = await request(app)
      .get("/auth/session")
      .set("Cookie", cookieHeader(alice))
      .set("Authorization", `Bearer ${bob.token}`)
    expect(both.body.user.name).toBe("bob")
    expect(setCookies(both)).toHaveLength(0)
    const garbage = await request(app)
      .get("/auth/session")
      .set("Cookie", cookieHeader(alice))
      .set("Authorization", "Bearer not-a-session")
    expect(garbage.status).toBe(200)
    expect(garbage.body).toBeNull()
    expect(setCookies(garbage)).toHaveLength(0)
    // Server reads too.
    const server = await request(app)
      .get("/api/handler")
      .set("Cookie", cookieHeader(alice))
      .set("Authorization", `Bearer ${bob.token}`)
    expect(server.body.user.name).toBe("bob")

    const off = tokenApp({ bearer: false })
    const aliceOff = await cookieSignIn(off.app, "alice")
    const ignored = await request(off.app)
      .get("/auth/session")
      .set("Cookie", cookieHeader(aliceOff))
      .set("Authorization", `Bearer ${bob.token}`)
    expect(ignored.body.user.name).toBe("alice")
    // With bearer off, X-Auth-Return-Token is ignored: the Auth.js answer (here the CSRF refusal of a form post).
    const noToken = await request(off.app)
      .post("/auth/callback/credentials")
      .set("X-Auth-Return-Token", "1")
      .send({ username: "alice", password: "alice-pw" })
    expect(noToken.status).toBe(302)
    expect(noToken.body.token).toBeUndefined()
  })

  test("T1-5 bearer POST /auth/session updates without CSRF and re-issues in X-Auth-Token; a cookie without CSRF is 400 null", async () => {
    const { app } = tokenApp()
    const { token } = await tokenSignIn(app, "alice")
    const res = await request(app)
      .post("/auth/session")
      .set("Authorization", `Bearer ${token}`)
      .send({ data: { name: "Alice Updated" } })
    expect(res.status).toBe(200)
    expect(res.body.user.name).toBe("Alice Updated")
    expect(setCookies(res)).toHaveLength(0)
    const reissued = res.headers["x-auth-token"] as string
    expect(typeof reissued).toBe("string")
    expect(Number(res.headers["x-auth-token-expires"])).toBeGreaterThan(Date.now() / 1000)
    const decoded = await decode({ token: reissued, secret: SECRET, salt: "authjs.session-token" })
    expect(decoded?.name).toBe("Alice Updated")

    const alice = await cookieSignIn(app, "alice")
    const cookie = await request(app)
      .post("/auth/session")
      .set("Cookie", cookieHeader(alice))
      .send({ data: { name: "x" } })
    expect(cookie.status).toBe(400)
    expect(cookie.body).toBeNull()
  })

  test("T1-6 signOut(req, res, {redirect: false}): a cookie without origin proof is MissingCSRF; a bearer needs none", async () => {
    const { app } = tokenApp()
    const alice = await cookieSignIn(app, "alice")
    const cookie = await request(app).post("/api/logout").set("Cookie", cookieHeader(alice))
    expect(cookie.status).toBe(403)
    expect(cookie.body.error).toBe("MissingCSRF")

    const { token } = await tokenSignIn(app, "alice")
    const bearer = await request(app).post("/api/logout").set("Authorization", `Bearer ${token}`)
    expect(bearer.status).toBe(200)
    expect(typeof bearer.body.url).toBe("string")
    expect(setCookies(bearer)).toHaveLength(0)
    const after = await request(app).get("/auth/session").set("Authorization", `Bearer ${token}`)
    expect(after.body).toBeNull()
  })

  for (const strategy of ["jwt", "database"] as const) {
    test(`T1-7 POST /auth/signout with a bearer (${strategy}): 200 {ok:true}, no cookie, the bearer is dead, once`, async () => {
      const adapter = MemoryAdapter()
      const { app, signOutEvents } = tokenApp({ strategy, adapter })
      const { token } = await tokenSignIn(app, "alice")
      const other = await tokenSignIn(app, "alice")
      const res = await request(app).post("/auth/signout").set("Authorization", `Bearer ${token}`)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ ok: true })
      expect(res.headers["cache-control"]).toContain("no-store")
      expect(setCookies(res)).toHaveLength(0)
      const after = await request(app).get("/auth/session").set("Authorization", `Bearer ${token}`)
      expect(after.body).toBeNull()
      // Only that one session ended.
      const still = await request(app).get("/auth/session").set("Authorization", `Bearer ${other.token}`)
      expect(still.body.user.name).toBe("alice")
      const again = await request(app).post("/auth/signout").set("Authorization", `Bearer ${token}`)
      expect(again.status).toBe(200)
      expect(again.body).toEqual({ ok: true })
      expect(signOutEvents).toHaveLength(1)
    })
  }

  test("T1-8 a bearer does not exempt the credentials callback from CSRF", async () => {
    const { app } = tokenApp()
    const { token } = await tokenSignIn(app, "alice")
    const res = await request(app)
      .post("/auth/callback/credentials")
      .set("Authorization", `Bearer ${token}`)
      .type("form")
      .send({ username: "bob", password: "bob-pw" })
    expect(res.status).toBe(302)
    expect(res.headers.location).toContain("/auth/signin?error=MissingCSRF")
    expect(
      setCookies(res).some((c) => c.startsWith("authjs.session-token=") && !c.startsWith("authjs.session-token=;")),
    ).toBe(false)
  })
})

describe("tokens T1 in the Fetch flavour", () => {
  test("auth(request) reads a bearer; a re-issue after updateAge is applied as X-Auth-Token by applyCookies", async () => {
    const { Gatehouse: WebGatehouse } = await import("../../lib/web")
    const gh = WebGatehouse({
      secret: SECRET,
      trustHost: true,
      logger: quiet,
      session: { bearer: true, updateAge: 0 },
      providers: [
        Credentials({
          credentials: { username: {}, password: {} },
          authorize: (c) =>
            c.username === "alice" && c.password === "alice-pw" ? { id: "user-alice", name: "alice" } : null,
        }),
      ],
    })
    const login = await gh.handlers.POST(
      new Request("http://app.test/auth/callback/credentials", {
        method: "POST",
        headers: { "content-type": "application/json", "x-auth-return-token": "1" },
        body: JSON.stringify({ username: "alice", password: "alice-pw" }),
      }),
    )
    expect(login.status).toBe(200)
    const { token } = (await login.json()) as { token: string }
    const request = new Request("http://app.test/api", { headers: { authorization: `Bearer ${token}` } })
    const session = await gh.auth(request)
    expect(session?.user?.name).toBe("alice")
    const answer = gh.applyCookies(request, new Response("ok"))
    expect(answer.headers.get("x-auth-token")).toBeTruthy()
    expect(answer.headers.get("set-cookie")).toBeNull()
  })
})

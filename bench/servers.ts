/** The servers the benchmark compares, each an Express 5 app listening on its own loopback port (case (e) is in database.ts). */
import { createHash, hkdfSync, randomBytes, randomUUID, timingSafeEqual } from "node:crypto"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { parse as parseCookies } from "cookie"
import express, { type Express, type NextFunction, type Request, type Response } from "express"
import { EncryptJWT, base64url, calculateJwkThumbprint, jwtDecrypt } from "jose"
import type { AuthConfig } from "../lib"
import { loadPackage, type Package } from "./package"

/** The session cookie name over plain http, which is also the HKDF salt of its key. */
export const COOKIE_NAME = "authjs.session-token"

/** A fixed secret: the benchmark has to be reproducible and needs no environment. */
export const SECRET = "gatehouse-bench-secret-0123456789abcdefghijklmnop"

/** The CSRF cookie name over plain http. */
export const CSRF_COOKIE = "authjs.csrf-token"

/** The user the credentials cases sign in (every Gatehouse case shares the config). */
export const SIGN_IN_USER = { id: "bench-signin", name: "Bench Sign-in", email: "signin@example.com" }
const USERNAME = "bench"
const PASSWORD = "bench-password"

/** The one config every Gatehouse case uses (built with the package's own Credentials provider). */
function benchConfig({ Credentials }: Package): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) => (c.username === USERNAME && c.password === PASSWORD ? { ...SIGN_IN_USER } : null),
      }),
    ],
  }
}

export type CaseId = "a" | "b" | "c" | "d" | "e" | "f" | "g" | "h" | "i" | "j" | "k"

export interface BenchServer {
  id: CaseId
  label: string
  /** The URL autocannon hits. */
  url: string
  server: Server
  /** Request headers of this case, when not the shared JWT cookie (case (e) sends its database session token). */
  headers?: Record<string, string>
  method?: "GET" | "POST"
  body?: string
}

/** A CSRF token and its cookie value (`<token>|sha256(token + secret)`), minted once like a browser's after /csrf. */
export function csrfPair(): { token: string; cookie: string } {
  const token = randomBytes(32).toString("hex")
  return { token, cookie: `${token}|${createHash("sha256").update(`${token}${SECRET}`).digest("hex")}` }
}

/** The payload (b) answers with, so its response is the same size class as (c)'s. */
interface FloorBody {
  user: { name: unknown; email: unknown; image: unknown }
  expires: string
}

/**
 * Derives the session key once, as Auth.js does: HKDF-SHA256, IKM = secret, salt = cookie name,
 * info = `Auth.js Generated Encryption Key (<salt>)`, 64 bytes for A256CBC-HS512.
 */
function floorKey(): Uint8Array {
  const info = `Auth.js Generated Encryption Key (${COOKIE_NAME})`
  return new Uint8Array(hkdfSync("sha256", SECRET, COOKIE_NAME, info, 64))
}

function bareApp(): Express {
  const app = express()
  app.get("/", (_req, res) => {
    res.json({ ok: true })
  })
  return app
}

function floorApp(): Express {
  const app = express()
  const key = floorKey()
  app.get("/", (req, res, next) => {
    const token = parseCookies(req.headers.cookie ?? "")[COOKIE_NAME]
    if (!token) {
      res.status(401).json({ error: "Unauthorized" })
      return
    }
    jwtDecrypt(token, key, { keyManagementAlgorithms: ["dir"], contentEncryptionAlgorithms: ["A256CBC-HS512"] })
      .then(({ payload }) => {
        const exp = typeof payload.exp === "number" ? payload.exp : 0
        const body: FloorBody = {
          user: { name: payload.name, email: payload.email, image: payload.picture },
          expires: new Date(exp * 1000).toISOString(),
        }
        res.json(body)
      })
      .catch(next)
  })
  return app
}

const NO_CACHE = { "cache-control": "private, no-cache, no-store", expires: "0", pragma: "no-cache" }

/** The anonymous floor: parse the Cookie header, find no session cookie, answer `null` with the no-cache headers. */
function anonymousFloorApp(): Express {
  const app = express()
  app.get("/", (req, res) => {
    const token = parseCookies(req.headers.cookie ?? "")[COOKIE_NAME]
    res.set(NO_CACHE)
    res.json(token ? { error: "unexpected cookie" } : null)
  })
  return app
}

/**
 * The anonymous floor with the work the wire contract adds to every `GET /session` answer (reference-behavior.md 1.3,
 * "base cookies"): a fresh CSRF token and its cookie (`<token>|sha256(token + secret)`) and the callback-url cookie.
 * Not a target: it shows how much of (f)'s gap to (g) the contract itself costs.
 */
function anonymousBaseCookiesApp(): Express {
  const app = express()
  app.get("/", (req, res) => {
    const cookies = parseCookies(req.headers.cookie ?? "")
    const token = randomBytes(32).toString("hex")
    const hash = createHash("sha256").update(`${token}${SECRET}`).digest("hex")
    const options = { path: "/", httpOnly: true, sameSite: "lax" } as const
    res.set(NO_CACHE)
    res.cookie(CSRF_COOKIE, `${token}|${hash}`, options)
    res.cookie("authjs.callback-url", `${req.protocol}://${req.get("host")}`, options)
    res.json(cookies[COOKIE_NAME] ? { error: "unexpected cookie" } : null)
  })
  return app
}

/**
 * The end of (i) and (j): one `EncryptJWT` of the signed-in user with the key and `kid` derived once, the session
 * cookie, and `{ url }` as JSON.
 */
function floorSessionIssuer(): (req: Request, res: Response, next: NextFunction) => void {
  const key = floorKey()
  const kid = calculateJwkThumbprint({ kty: "oct", k: base64url.encode(key) }, "sha512")
  const maxAge = 30 * 24 * 60 * 60
  return (req, res, next) => {
    const now = Math.floor(Date.now() / 1000)
    kid
      .then((k) =>
        new EncryptJWT({ name: SIGN_IN_USER.name, email: SIGN_IN_USER.email, sub: SIGN_IN_USER.id })
          .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", kid: k })
          .setIssuedAt(now)
          .setExpirationTime(now + maxAge)
          .setJti(randomUUID())
          .encrypt(key),
      )
      .then((jwe) => {
        res.cookie(COOKIE_NAME, jwe, {
          path: "/",
          httpOnly: true,
          sameSite: "lax",
          expires: new Date((now + maxAge) * 1000),
        })
        res.json({ url: `${req.protocol}://${req.get("host")}` })
      })
      .catch(next)
  }
}

/**
 * The sign-in floor: the same CSRF double-submit check (cookie hash under the secret, body token equal to it), the
 * same credentials check, one encrypt with a key derived once, the session cookie, and `{ url }` as JSON.
 */
function signInFloorApp(): Express {
  const app = express()
  const issueSession = floorSessionIssuer()
  app.post("/", express.urlencoded({ extended: false }), (req, res, next) => {
    const body = (req.body ?? {}) as Record<string, string | undefined>
    const cookie = parseCookies(req.headers.cookie ?? "")[CSRF_COOKIE] ?? ""
    const sep = cookie.indexOf("|")
    const token = cookie.slice(0, sep)
    const hash = Buffer.from(cookie.slice(sep + 1))
    const expected = Buffer.from(createHash("sha256").update(`${token}${SECRET}`).digest("hex"))
    const csrfOk =
      sep > 0 &&
      hash.length === expected.length &&
      timingSafeEqual(hash, expected) &&
      typeof body.csrfToken === "string" &&
      body.csrfToken.length === token.length &&
      timingSafeEqual(Buffer.from(body.csrfToken), Buffer.from(token))
    if (!csrfOk) {
      res.status(400).json({ error: "MissingCSRF" })
      return
    }
    if (body.username !== USERNAME || body.password !== PASSWORD) {
      res.status(401).json({ error: "CredentialsSignin" })
      return
    }
    issueSession(req, res, next)
  })
  return app
}

/**
 * The ceiling of (h)/(i) on `jose`, not a floor: the least any Express route can do and still issue the same session
 * cookie with `jose` (drain the body unread, one `EncryptJWT` with a cached key, the cookie, `{ url }`), with no CSRF
 * check, no body parsing and no credentials check. Gatehouse's sign-in encrypts on `node:crypto`, so h/i can pass it.
 */
function signInBoundApp(): Express {
  const app = express()
  const issueSession = floorSessionIssuer()
  app.post("/", (req, res, next) => {
    req.resume()
    req.once("end", () => issueSession(req, res, next))
  })
  return app
}

function protectedApp({ requireAuth }: Package, config: AuthConfig): Express {
  const app = express()
  app.get("/", requireAuth(config), (_req, res) => {
    res.json(res.locals.session)
  })
  return app
}

function authAppOf({ ExpressAuth }: Package, config: AuthConfig): Express {
  const app = express()
  app.use("/auth", ExpressAuth(config))
  return app
}

function listen(app: Express): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, "127.0.0.1", (error?: Error) => {
      if (error) {
        reject(error)
        return
      }
      resolve({ server, port: (server.address() as AddressInfo).port })
    })
  })
}

interface Spec {
  id: CaseId
  label: string
  app: Express
  path: string
  method?: "GET" | "POST"
  /** Headers and body of this case, given the origin it listens on; none: the shared session cookie (run.ts). */
  request?: (origin: string) => { headers: Record<string, string>; body?: string }
}

/** The credentials sign-in request: a browser that fetched /csrf before (its CSRF and callback-url cookies). */
function signInRequest(origin: string, csrf: { token: string; cookie: string }) {
  return {
    headers: {
      cookie: `${CSRF_COOKIE}=${encodeURIComponent(csrf.cookie)}; authjs.callback-url=${encodeURIComponent(origin)}`,
      "content-type": "application/x-www-form-urlencoded",
      "x-auth-return-redirect": "1",
      accept: "application/json",
    },
    body: new URLSearchParams({ csrfToken: csrf.token, username: USERNAME, password: PASSWORD }).toString(),
  }
}

/**
 * Starts the servers: (a) bare, (b) floor, (c) requireAuth, (d) ExpressAuth `GET /auth/session`, (f) the same route
 * without any cookie, (g) its floor and (k) that floor with the base cookies, (h) the credentials sign-in (POST
 * /auth/callback/credentials after /csrf), (i) its floor and (j) the bound of h/i on jose. Each case has its own app and port.
 */
export async function startServers(): Promise<BenchServer[]> {
  const gatehouse = await loadPackage()
  const config = benchConfig(gatehouse)
  const authApp = () => authAppOf(gatehouse, config)
  const csrf = csrfPair()
  const anonymous = () => ({ headers: { accept: "application/json" } })
  const specs: Spec[] = [
    { id: "a", label: "bare Express route", app: bareApp(), path: "/" },
    { id: "b", label: "floor: cookie + jose.jwtDecrypt", app: floorApp(), path: "/" },
    { id: "c", label: "requireAuth(config) route", app: protectedApp(gatehouse, config), path: "/" },
    { id: "d", label: "ExpressAuth GET /auth/session", app: authApp(), path: "/auth/session" },
    {
      id: "f",
      label: "GET /auth/session, no cookie",
      app: authApp(),
      path: "/auth/session",
      request: anonymous,
    },
    { id: "g", label: "floor: no cookie -> null", app: anonymousFloorApp(), path: "/", request: anonymous },
    {
      id: "k",
      label: "floor + base cookies (no target)",
      app: anonymousBaseCookiesApp(),
      path: "/",
      request: anonymous,
    },
    {
      id: "h",
      label: "credentials sign-in (POST callback)",
      app: authApp(),
      path: "/auth/callback/credentials",
      method: "POST",
      request: (origin) => signInRequest(origin, csrf),
    },
    {
      id: "i",
      label: "floor: CSRF check + one encrypt",
      app: signInFloorApp(),
      path: "/",
      method: "POST",
      request: (origin) => signInRequest(origin, csrf),
    },
    {
      id: "j",
      label: "bound: one encrypt, nothing else",
      app: signInBoundApp(),
      path: "/",
      method: "POST",
      request: (origin) => signInRequest(origin, csrf),
    },
  ]
  const started: BenchServer[] = []
  for (const spec of specs) {
    const { server, port } = await listen(spec.app)
    // Keep-alive sockets from the load generator must not be cut between runs.
    server.keepAliveTimeout = 60_000
    const origin = `http://127.0.0.1:${port}`
    const request = spec.request?.(origin)
    started.push({
      id: spec.id,
      label: spec.label,
      url: `${origin}${spec.path}`,
      server,
      ...(request ? { headers: request.headers } : {}),
      ...(spec.method ? { method: spec.method } : {}),
      ...(request?.body !== undefined ? { body: request.body } : {}),
    })
  }
  return started
}

/** Closes every server, dropping idle keep-alive sockets. */
export async function stopServers(servers: readonly BenchServer[]): Promise<void> {
  await Promise.all(
    servers.map(
      ({ server }) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        }),
    ),
  )
}

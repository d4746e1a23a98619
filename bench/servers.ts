/** The servers the benchmark compares, each an Express 5 app listening on its own loopback port (case (e) is in database.ts). */
import { hkdfSync } from "node:crypto"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { parse as parseCookies } from "cookie"
import express, { type Express } from "express"
import { jwtDecrypt } from "jose"
import { ExpressAuth, requireAuth, type AuthConfig } from "../lib"
import Credentials from "../lib/providers/credentials"

/** The session cookie name over plain http, which is also the HKDF salt of its key. */
export const COOKIE_NAME = "authjs.session-token"

/** A fixed secret: the benchmark has to be reproducible and needs no environment. */
export const SECRET = "gatehouse-bench-secret-0123456789abcdefghijklmnop"

/** The one config every Gatehouse case uses. */
export const config: AuthConfig = {
  secret: SECRET,
  trustHost: true,
  providers: [Credentials({ authorize: () => null })],
}

export type CaseId = "a" | "b" | "c" | "d" | "e"

export interface BenchServer {
  id: CaseId
  label: string
  /** The URL autocannon hits. */
  url: string
  server: Server
  /** Request headers of this case, when not the shared JWT cookie (case (e) sends its database session token). */
  headers?: Record<string, string>
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

function protectedApp(): Express {
  const app = express()
  app.get("/", requireAuth(config), (_req, res) => {
    res.json(res.locals.session)
  })
  return app
}

function authApp(): Express {
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

/** Starts the four servers: (a) bare, (b) floor, (c) requireAuth, (d) ExpressAuth `GET /auth/session`. */
export async function startServers(): Promise<BenchServer[]> {
  const specs: { id: CaseId; label: string; app: Express; path: string }[] = [
    { id: "a", label: "bare Express route", app: bareApp(), path: "/" },
    { id: "b", label: "floor: cookie + jose.jwtDecrypt", app: floorApp(), path: "/" },
    { id: "c", label: "requireAuth(config) route", app: protectedApp(), path: "/" },
    { id: "d", label: "ExpressAuth GET /auth/session", app: authApp(), path: "/auth/session" },
  ]
  const started: BenchServer[] = []
  for (const spec of specs) {
    const { server, port } = await listen(spec.app)
    // Keep-alive sockets from the load generator must not be cut between runs.
    server.keepAliveTimeout = 60_000
    started.push({ id: spec.id, label: spec.label, url: `http://127.0.0.1:${port}${spec.path}`, server })
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

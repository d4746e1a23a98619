// PostgreSQL and Redis behind a fault proxy, with their drivers' DEFAULT settings (no query timeout) and
// adapterTimeout: 300. For each fault (stops answering, refuses new connections, cuts live ones mid-request) and each
// flow (credentials sign-in, session read, sign-out, magic-link request and use): a bounded, clean failure, no
// half-written state, recovery without a restart, no leaked connections, and no crash on a dropped idle connection.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import Redis from "ioredis"
import { Pool } from "pg"
import request from "supertest"
import { ExpressAuth, requireAuth } from "../../lib"
import { PostgresAdapter, migrate } from "../../lib/storage/postgres/adapter"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import Email from "../../lib/providers/email"
import { DATABASE_URL, POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { cookieHeader, cookieJar } from "../express/apps"
import { startFaultProxy, type FaultMode, type FaultProxy } from "../fixtures/fault-proxy"
import { confirmFormOf } from "../fixtures/magic-link"

const SESSION = "authjs.session-token"
type Fault = Exclude<FaultMode, "pass" | "delay"> | "reset"
const FAULTS: Fault[] = ["blackhole", "drop", "reset"]

interface Backend {
  adapter: Adapter
  /** Connections the driver holds open through the proxy, and whether that count is back to its resting state. */
  settled(): Promise<void>
  /** Resolves once the driver has reconnected by itself after the service came back (no restart). */
  recovered(): Promise<void>
  close(): Promise<void>
}

interface Harness {
  proxy: FaultProxy
  backend: Backend
  errors: Error[]
  links: string[]
  server: Server
  origin: string
}

function setCookies(res: request.Response): string[] {
  return ([] as string[]).concat(res.headers["set-cookie"] ?? [])
}
const issuedSession = (res: request.Response) =>
  setCookies(res).filter((c) => c.startsWith(`${SESSION}=`) && !/Max-Age=0/.test(c))

function startHarness(makeBackend: (proxy: FaultProxy) => Promise<Backend>, target: { host: string; port: number }) {
  const h = { errors: [] as Error[], links: [] as string[] } as Harness
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end()

  beforeAll(async () => {
    h.proxy = await startFaultProxy(target)
    h.backend = await makeBackend(h.proxy)
    h.server = createServer((req, res) => handler(req, res))
    await new Promise<void>((resolve) => h.server.listen(0, "127.0.0.1", resolve))
    h.origin = `http://127.0.0.1:${(h.server.address() as AddressInfo).port}`
    const config: AuthConfig = {
      secret: "faults-db-secret-0123456789abcdef0123456",
      trustHost: true,
      adapter: h.backend.adapter,
      adapterTimeout: 300,
      session: { strategy: "database" },
      logger: { error: (e) => h.errors.push(e), warn: () => undefined, debug: () => undefined },
      providers: [
        Credentials({
          credentials: { username: {}, password: {} },
          authorize: (c) =>
            c.password === "pw" && typeof c.username === "string"
              ? { id: `user-${c.username}`, name: c.username, email: `${c.username}@example.test` }
              : null,
        }),
        Email({ sendVerificationRequest: ({ url }) => void h.links.push(url) }),
      ],
    }
    const app = express()
    app.use("/auth", ExpressAuth(config))
    app.get("/me", requireAuth(config), (_req, res) => {
      res.json(res.locals.session)
    })
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      h.errors.push(Object.assign(error, { escaped: true }))
      res.status(500).json({ escaped: error.message })
    })
    handler = app
  })
  afterEach(() => restore(h))
  afterAll(async () => {
    await h.backend.close()
    await h.proxy.close()
    h.server.closeAllConnections()
    await new Promise<void>((resolve) => h.server.close(() => resolve()))
  })
  return h
}

function flows(h: Harness) {
  const agent = () => request(h.server)
  const csrf = async (jar: Record<string, string> = {}) => {
    const res = await agent().get("/auth/csrf").set("Cookie", cookieHeader(jar))
    return { token: res.body.csrfToken as string, jar: cookieJar(jar, res.headers["set-cookie"]) }
  }
  return {
    async signIn(username: string, headers: Record<string, string> = {}) {
      const { token, jar } = await csrf()
      const response = await agent()
        .post("/auth/callback/credentials")
        .set(headers)
        .set("Cookie", cookieHeader(jar))
        .type("form")
        .send({ csrfToken: token, username, password: "pw", callbackUrl: "/dashboard" })
      return { response, jar: cookieJar(jar, response.headers["set-cookie"]) }
    },
    session: (jar: Record<string, string>) => agent().get("/auth/session").set("Cookie", cookieHeader(jar)),
    me: (jar: Record<string, string>) =>
      agent().get("/me").set("Accept", "application/json").set("Cookie", cookieHeader(jar)),
    async signOut(jar: Record<string, string>) {
      const c = await csrf(jar)
      return agent()
        .post("/auth/signout")
        .set("Cookie", cookieHeader(c.jar))
        .type("form")
        .send({ csrfToken: c.token, callbackUrl: "/bye" })
    },
    async requestLink(email: string) {
      const { token, jar } = await csrf()
      return agent()
        .post("/auth/signin/email")
        .set("Cookie", cookieHeader(jar))
        .type("form")
        .send({ csrfToken: token, email, callbackUrl: "/dashboard" })
    },
    // The link shows the confirmation page (ML-5), which reads the store only under the adapter time limit (whether
    // the link was used); its form's POST is the sign-in.
    useLink: async (link: string) => {
      const url = new URL(link)
      const page = await agent().get(`${url.pathname}${url.search}`)
      expect(page.status).toBe(200)
      const { action, fields } = confirmFormOf(page.text)
      return agent()
        .post(new URL(action).pathname)
        .set("Cookie", cookieHeader(cookieJar({}, page.headers["set-cookie"])))
        .type("form")
        .send(fields)
    },
  }
}

/** Runs `action` under `fault`: the service stops answering, refuses new connections, or cuts the call in flight. */
async function underFault<T>(proxy: FaultProxy, fault: Fault, action: () => Promise<T>): Promise<T> {
  proxy.reset() // live pooled connections would otherwise dodge "drop"
  if (fault !== "reset") {
    proxy.mode = fault
    return action()
  }
  proxy.mode = "blackhole"
  const pending = action()
  await new Promise((resolve) => setTimeout(resolve, 100))
  proxy.reset()
  proxy.mode = "drop"
  return pending
}

async function restore(h: Harness): Promise<void> {
  h.proxy.reset()
  h.proxy.mode = "pass"
  await h.backend.recovered()
  h.errors.length = 0
}

/** An outage answer for an API client: 503, no-store, Retry-After, JSON, and the failure logged with its code. */
function expectServiceUnavailable(response: request.Response): void {
  expect(response.status).toBe(503)
  expect(response.headers["content-type"]).toMatch(/^application\/json/)
  expect(response.headers["retry-after"]).toBe("5")
  expect(response.headers["cache-control"]).toBe("no-store")
}

function expectErrorPage(h: Harness, response: request.Response): void {
  expect(response.status).toBe(302)
  expect(response.headers.location).toBe(`${h.origin}/auth/error?error=Configuration`)
  expect(issuedSession(response)).toEqual([])
  expect(h.errors.map((e) => (e as { type?: string }).type)).toContain("AdapterError")
  // What went wrong is named by code: the database timed out or could not be reached.
  expect(h.errors.map((e) => (e as { code?: string }).code)).toEqual(
    expect.arrayContaining([expect.stringMatching(/^adapter_(timeout|unavailable)$/)]),
  )
  expect(h.errors.some((e) => "escaped" in e)).toBe(false)
}

function faultSuite(h: Harness) {
  const f = flows(h)

  describe.each(FAULTS)("fault: %s", (fault) => {
    it("credentials sign-in: error page, no session row; the same sign-in works once the service is back", async () => {
      const name = `cal-${fault}-${randomSuffix()}`
      const { response } = await underFault(h.proxy, fault, () => f.signIn(name))
      expectErrorPage(h, response)

      await restore(h)
      const ok = await f.signIn(name)
      expect(ok.response.headers.location).toBe(`${h.origin}/dashboard`)
      expect(ok.jar[SESSION]).toBeTruthy()
      expect((await f.me(ok.jar)).body.user.name).toBe(name)
      await h.backend.settled()
    })

    it("session read and requireAuth: 503 / 401, cookie kept; the same cookie works once the service is back", async () => {
      const { jar } = await f.signIn(`dee-${fault}-${randomSuffix()}`)
      const [session, me] = await underFault(h.proxy, fault, () => Promise.all([f.session(jar), f.me(jar)]))
      expectServiceUnavailable(session)
      expect(session.body).toEqual({ error: "ServiceUnavailable" })
      expect(setCookies(session).filter((c) => c.startsWith(SESSION))).toEqual([])
      expect(me.status).toBe(401)
      expect(h.errors.some((e) => "escaped" in e)).toBe(false)

      await restore(h)
      expect((await f.me(jar)).status).toBe(200)
      await h.backend.settled()
    })

    it("credentials sign-in from API clients: 503 JSON with Retry-After; a browser keeps the error page", async () => {
      const name = `api-${fault}-${randomSuffix()}`
      const [json, returned] = await underFault(h.proxy, fault, () =>
        Promise.all([
          f.signIn(name, { Accept: "application/json" }),
          f.signIn(name, { "X-Auth-Return-Redirect": "1" }),
        ]),
      )
      expectServiceUnavailable(json.response)
      expect(json.response.body).toEqual({ error: "ServiceUnavailable" })
      expectServiceUnavailable(returned.response)
      // The Auth.js client reads `url` from a returned redirect: it names the error page.
      expect(returned.response.body).toEqual({
        error: "ServiceUnavailable",
        url: `${h.origin}/auth/error?error=Configuration`,
      })
      for (const { response } of [json, returned]) expect(issuedSession(response)).toEqual([])

      await restore(h)
      const ok = await f.signIn(name, { Accept: "application/json" })
      expect(ok.response.status).toBe(302)
      expect(ok.jar[SESSION]).toBeTruthy()
      await h.backend.settled()
    })

    it("sign-out: the cookie is cleared anyway; the session row goes on the next sign-out once back", async () => {
      const { jar } = await f.signIn(`eli-${fault}-${randomSuffix()}`)
      const out = await underFault(h.proxy, fault, () => f.signOut(jar))
      expect(out.status).toBe(302)
      expect(out.headers.location).toBe(`${h.origin}/bye`)
      expect(setCookies(out).filter((c) => c.startsWith(`${SESSION}=`))).toEqual([
        `${SESSION}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`,
      ])
      expect(h.errors.some((e) => "escaped" in e)).toBe(false)

      await restore(h)
      // The row may already be gone (a delete the driver sent late is what sign-out asked for); signing out again
      // once the service is back removes it for sure.
      expect((await f.signOut(jar)).status).toBe(302)
      expect((await f.me(jar)).status).toBe(401) // the old cookie names no session any more
      await h.backend.settled()
    })

    it("magic-link request: error page, nothing sent; works once the service is back", async () => {
      const email = `fay-${fault}-${randomSuffix()}@example.test`
      const sentBefore = h.links.length
      const response = await underFault(h.proxy, fault, () => f.requestLink(email))
      expectErrorPage(h, response)
      expect(h.links.length).toBe(sentBefore)

      await restore(h)
      const ok = await f.requestLink(email)
      expect(ok.headers.location).toMatch(/\/auth\/verify-request\?/)
      expect(h.links.length).toBe(sentBefore + 1)
      await h.backend.settled()
    })

    it("magic-link use: error page, no session, the link is not used up; it signs in once the service is back", async () => {
      const email = `gus-${fault}-${randomSuffix()}@example.test`
      await f.requestLink(email)
      const link = h.links.at(-1)!
      const response = await underFault(h.proxy, fault, () => f.useLink(link))
      expectErrorPage(h, response)

      await restore(h)
      const ok = await f.useLink(link)
      expect(h.errors).toEqual([])
      expect(ok.headers.location).toBe(`${h.origin}/dashboard`)
      expect(issuedSession(ok)).toHaveLength(1)
      expect((await h.backend.adapter.getUserByEmail!(email))?.emailVerified).toBeInstanceOf(Date)
      await h.backend.settled()
    })
  })
}

const pgUrl = new URL(DATABASE_URL)
describeWithService(POSTGRES, "PostgreSQL faults (default pool settings, adapterTimeout 300)", () => {
  const schema = `gatehouse_faults_${randomSuffix()}`
  const admin = new Pool({ connectionString: DATABASE_URL, max: 1 })
  const h = startHarness(
    async (proxy) => {
      await migrate(admin, { schema })
      // Default settings on purpose (no query_timeout, no error listener of our own): the adapter attaches one.
      const pool = new Pool({
        host: "127.0.0.1",
        port: proxy.port,
        user: pgUrl.username || "postgres",
        database: pgUrl.pathname.slice(1) || "test",
        max: 4,
      })
      return {
        adapter: PostgresAdapter(pool, { schema }),
        recovered: async () => undefined, // the pool opens a new connection on the next query
        async settled() {
          // No leak: nobody waits for a client, every client is back in the pool, and every open connection
          // through the proxy belongs to the pool.
          await new Promise((resolve) => setTimeout(resolve, 50))
          expect(pool.waitingCount).toBe(0)
          expect(pool.idleCount).toBe(pool.totalCount)
          expect(pool.totalCount).toBeLessThanOrEqual(4)
          expect(proxy.liveConnections).toBe(pool.totalCount)
        },
        async close() {
          await pool.end()
          await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
          await admin.end()
        },
      }
    },
    { host: pgUrl.hostname, port: Number(pgUrl.port || 5432) },
  )
  faultSuite(h)

  it("an idle pooled connection dropped by the network does not crash the process; the pool reconnects", async () => {
    const { jar } = await flows(h).signIn(`hal-${randomSuffix()}`)
    expect(h.proxy.liveConnections).toBeGreaterThan(0)
    h.proxy.reset() // every idle pooled connection dies; the pool emits "error" for each
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await flows(h).me(jar)).status).toBe(200)
    await h.backend.settled()
  })
})

const redisUrl = new URL(REDIS_URL)
describeWithService(REDIS, "Redis faults (the README's ioredis settings, adapterTimeout 300)", () => {
  const h = startHarness(
    async (proxy) => {
      // As the README recommends: with ioredis's defaults, a command the core already gave up on (adapterTimeout) is
      // queued or re-sent and runs after the reconnect, e.g. a magic link consumed with no session to show for it.
      const client = new Redis({
        host: "127.0.0.1",
        port: proxy.port,
        enableOfflineQueue: false,
        autoResendUnfulfilledCommands: false,
      })
      // Back once a PING answers: the cut connection may not have been noticed yet, and ioredis reconnects with its
      // own back-off.
      const ready = async () => {
        for (let attempt = 0; attempt < 200; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 25))
          if (client.status === "ready" && (await client.ping().catch(() => "")) === "PONG") return
        }
        throw new Error("Redis did not come back")
      }
      await ready()
      return {
        adapter: RedisAdapter(client, { prefix: `gatehouse-faults-${randomSuffix()}:` }),
        recovered: ready, // ioredis reconnects by itself, with its default back-off
        async settled() {
          await ready()
          // One connection, the client's own: reconnects did not pile up.
          expect(proxy.liveConnections).toBe(1)
        },
        async close() {
          client.disconnect()
        },
      }
    },
    { host: redisUrl.hostname, port: Number(redisUrl.port || 6379) },
  )
  faultSuite(h)
})

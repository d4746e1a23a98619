// End to end through Express with each adapter (memory, SQLite, PostgreSQL, Redis) and database sessions: credentials
// sign-in, session reads, updateAge throttling, sign-out, re-authentication, one magic link raced 20 times, and an OAuth
// sign-in with account linking against PostgreSQL and a real oidc-provider.
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import express5 from "express"
import Redis from "ioredis"
import { Pool } from "pg"
import request from "supertest"
import { ExpressAuth, requireAuth } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { PostgresAdapter, migrate } from "../../lib/storage/postgres/adapter"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import { hashSessionToken } from "../../lib/core/session/token"
import type { AuthConfig } from "../../lib/core/kernel/types"
import type { AuthError } from "../../lib/errors"
import Credentials from "../../lib/providers/credentials"
import Email from "../../lib/providers/email"
import type { OAuthConfig } from "../../lib/providers/types"
import { DATABASE_URL, POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { cookieHeader, cookieJar, versions, type ExpressFactory } from "../express/apps"
import { driveAuthorization, startOidcProvider, type StartedOidcProvider } from "../fixtures/oauth/oidc-provider"
import { fakeDateOnly } from "../fixtures/clock"
import { postConfirmation } from "../fixtures/magic-link"

const SECRET = "adapters-e2e-secret-0123456789abcdef0123456789"
const SESSION_COOKIE = "authjs.session-token"
const MAX_AGE = 60 * 60
const UPDATE_AGE = 10 * 60
const CLEARED = `${SESSION_COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`

type FullAdapter = Required<Adapter>

/** An adapter under test, and a way to count a user's session rows in the store itself. */
interface Store {
  adapter: FullAdapter
  sessionRows(userId: string): Promise<number>
  teardown(): Promise<void>
}

/** The adapter with every call counted (a spy that changes nothing). */
function instrument(adapter: FullAdapter): { adapter: FullAdapter; calls: (name: keyof FullAdapter) => number } {
  const counts = new Map<string, number>()
  const wrapped: Record<string, unknown> = {}
  for (const [name, method] of Object.entries(adapter)) {
    if (typeof method !== "function") continue
    wrapped[name] = (...args: unknown[]) => {
      counts.set(name, (counts.get(name) ?? 0) + 1)
      return (method as (...a: unknown[]) => unknown).apply(adapter, args)
    }
  }
  return { adapter: wrapped as FullAdapter, calls: (name) => counts.get(name) ?? 0 }
}

async function memoryStore(): Promise<Store> {
  const adapter = MemoryAdapter()
  // The memory adapter has no way to list rows: remember every token it was given and ask it about each.
  const tokens: { sessionToken: string; userId: string }[] = []
  const createSession = adapter.createSession.bind(adapter)
  adapter.createSession = async (session) => {
    tokens.push({ sessionToken: session.sessionToken, userId: session.userId })
    return createSession(session)
  }
  return {
    adapter,
    sessionRows: async (userId) => {
      let n = 0
      for (const t of tokens) if (t.userId === userId && (await adapter.getSessionAndUser(t.sessionToken))) n++
      return n
    },
    teardown: async () => undefined,
  }
}

async function sqliteStore(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-e2e-sqlite-"))
  const db = new Database(join(dir, "auth.sqlite"))
  const adapter = SQLiteAdapter(db)
  return {
    adapter,
    sessionRows: async (userId) =>
      (db.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ?").get(userId) as { n: number }).n,
    teardown: async () => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function postgresStore(): Promise<Store & { pool: Pool; schema: string }> {
  const schema = `gatehouse_e2e_${randomSuffix()}`
  const pool = new Pool({ connectionString: DATABASE_URL, max: 10 })
  await migrate(pool, { schema })
  return {
    pool,
    schema,
    adapter: PostgresAdapter(pool, { schema }),
    sessionRows: async (userId) =>
      (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".sessions WHERE user_id = $1`, [userId])).rows[0].n,
    teardown: async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await pool.end()
    },
  }
}

async function redisStore(): Promise<Store> {
  const prefix = `gatehouse-e2e-${randomSuffix()}:`
  const client = new Redis(REDIS_URL, { lazyConnect: true })
  await client.connect()
  return {
    adapter: RedisAdapter(client, { prefix }),
    sessionRows: async (userId) => {
      // The per-user index holds session keys; count those that still exist (expired ones are gone by TTL).
      const keys = await client.smembers(`${prefix}user-sessions:${userId}`)
      return keys.length === 0 ? 0 : client.exists(...keys)
    },
    teardown: async () => {
      let cursor = "0"
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000)
        if (keys.length > 0) await client.del(...keys)
        cursor = next
      } while (cursor !== "0")
      await client.quit()
    },
  }
}

/** Credentials: any username with password "pw"; the user id and email follow from the username. */
function credentials() {
  return Credentials({
    credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
    authorize: (c) =>
      c.password === "pw" && typeof c.username === "string"
        ? { id: `user-${c.username}`, name: c.username, email: `${c.username}@example.test` }
        : null,
  })
}

interface TestApp {
  server: Server
  origin: string
  config: AuthConfig
  calls: (name: keyof FullAdapter) => number
  errors: Error[]
  /** Every magic link the Email provider was asked to send. */
  links: string[]
}

const servers: Server[] = []
afterEach(async () => {
  jest.useRealTimers()
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections()
          s.close(() => resolve())
        }),
    ),
  )
})

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return server
}

const originOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`

/** An app with ExpressAuth (database sessions by default with an adapter), Credentials + Email, and `/me`. */
async function startApp(express: ExpressFactory, store: Store, extra: Partial<AuthConfig> = {}): Promise<TestApp> {
  const { adapter, calls } = instrument(store.adapter)
  const errors: Error[] = []
  const links: string[] = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { maxAge: MAX_AGE, updateAge: UPDATE_AGE },
    logger: { error: (e) => errors.push(e), warn: () => undefined, debug: () => undefined },
    providers: [
      credentials(),
      Email({
        sendVerificationRequest: ({ url }) => {
          links.push(url)
        },
      }),
    ],
    ...extra,
  }
  const app = express()
  app.use("/auth", ExpressAuth(config))
  app.get("/me", requireAuth(config), (_req, res) => {
    res.json(res.locals.session)
  })
  const server = await listen(app)
  return { server, origin: originOf(server), config, calls, errors, links }
}

let names = 0
/** A fresh username per test: the stores are shared by the tests of one adapter. */
const freshName = () => `ada${++names}-${randomSuffix()}`

function setCookies(res: request.Response): string[] {
  const raw = res.headers["set-cookie"] as string[] | string | undefined
  return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]
}

const sessionLines = (res: request.Response) => setCookies(res).filter((l) => l.startsWith(`${SESSION_COOKIE}=`))

/** csrf → POST /auth/callback/credentials, carrying `jar` (e.g. a session cookie already held). */
async function signIn(app: TestApp, username: string, jar: Record<string, string> = {}) {
  const csrf = await request(app.server).get("/auth/csrf").set("Cookie", cookieHeader(jar))
  const withCsrf = cookieJar(jar, csrf.headers["set-cookie"])
  const response = await request(app.server)
    .post("/auth/callback/credentials")
    .set("Cookie", cookieHeader(withCsrf))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, username, password: "pw", callbackUrl: "/dashboard" })
  return { response, jar: cookieJar(withCsrf, response.headers["set-cookie"]) }
}

const me = (app: TestApp, jar: Record<string, string>) =>
  request(app.server).get("/me").set("Accept", "application/json").set("Cookie", cookieHeader(jar))

const sessionOf = (app: TestApp, jar: Record<string, string>) =>
  request(app.server).get("/auth/session").set("Cookie", cookieHeader(jar))

/** The tests every adapter passes. */
function databaseSessionSuite(open: () => Promise<Store>): void {
  let store: Store
  beforeAll(async () => {
    store = await open()
  })
  afterAll(async () => store.teardown())

  describe.each(versions)("%s", (_version, express) => {
    it("credentials sign-in: the cookie is an opaque token naming a session row in the adapter", async () => {
      const app = await startApp(express, store)
      const name = freshName()
      const before = Date.now()
      const { response, jar } = await signIn(app, name)
      expect(app.errors).toEqual([])
      expect(response.status).toBe(302)
      expect(response.headers.location).toBe(`${app.origin}/dashboard`)

      const token = jar[SESSION_COOKIE]!
      // Opaque: no JWE segments, nothing of the user in it.
      expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/)
      expect(token).not.toContain(name)
      const found = await store.adapter.getSessionAndUser(hashSessionToken(token))
      expect(found?.session).toEqual({
        sessionToken: hashSessionToken(token),
        userId: `user-${name}`,
        expires: expect.any(Date),
        createdAt: expect.any(Date),
        lastActiveAt: expect.any(Date),
      })
      expect(found?.user).toMatchObject({ id: `user-${name}`, email: `${name}@example.test`, name })
      const expires = found!.session.expires.valueOf()
      expect(expires).toBeGreaterThanOrEqual(before + MAX_AGE * 1000 - 1000)
      expect(expires).toBeLessThanOrEqual(Date.now() + MAX_AGE * 1000)

      const lines = sessionLines(response)
      expect(lines).toEqual([
        `${SESSION_COOKIE}=${token}; Path=/; Expires=${found!.session.expires.toUTCString()}; HttpOnly; SameSite=Lax`,
      ])
      expect(await store.sessionRows(`user-${name}`)).toBe(1)
      expect(app.calls("createUser")).toBe(1)
      expect(app.calls("createSession")).toBe(1)
    })

    it("GET /auth/session and a requireAuth route read the session; without it: null, 401, a sign-in redirect", async () => {
      const app = await startApp(express, store)
      const name = freshName()
      const { jar } = await signIn(app, name)
      const { session } = (await store.adapter.getSessionAndUser(hashSessionToken(jar[SESSION_COOKIE]!)))!
      const expected = {
        user: { name, email: `${name}@example.test` },
        expires: session.expires.toISOString(),
      }

      const viaAuth = await sessionOf(app, jar)
      expect(viaAuth.status).toBe(200)
      expect(viaAuth.body).toMatchObject(expected)
      const viaRoute = await me(app, jar)
      expect(viaRoute.status).toBe(200)
      expect(viaRoute.body).toMatchObject(expected)

      expect((await sessionOf(app, {})).body).toBeNull()
      const anonymous = await me(app, {})
      expect(anonymous.status).toBe(401)
      expect(anonymous.body).toEqual({ error: "Unauthorized" })
      const browser = await request(app.server).get("/me").set("Accept", "text/html")
      expect(browser.status).toBe(302)
      expect(browser.headers.location).toBe(`/auth/signin?${new URLSearchParams({ callbackUrl: `${app.origin}/me` })}`)

      // A token the adapter does not know: 401, and the cookie is cleared.
      const unknown = await me(app, { [SESSION_COOKIE]: "f".repeat(64) })
      expect(unknown.status).toBe(401)
      expect(sessionLines(unknown)).toEqual([CLEARED])
      expect(app.errors).toEqual([])
    })

    it("updateAge throttles writes: none within updateAge, exactly one after it, then none again", async () => {
      const start = Date.now()
      fakeDateOnly(start)
      const app = await startApp(express, store)
      const { jar } = await signIn(app, freshName())
      const token = jar[SESSION_COOKIE]!
      const created = (await store.adapter.getSessionAndUser(hashSessionToken(token)))!.session.expires

      // Just short of updateAge: reads through both paths, no write. /auth/session re-sends the cookie (as the
      // reference does) with the unchanged expiry; requireAuth sends none.
      jest.setSystemTime(start + (UPDATE_AGE - 1) * 1000)
      expect((await me(app, jar)).status).toBe(200)
      const unchanged = await sessionOf(app, jar)
      expect(sessionLines(unchanged)).toEqual([
        `${SESSION_COOKIE}=${token}; Path=/; Expires=${created.toUTCString()}; HttpOnly; SameSite=Lax`,
      ])
      expect(sessionLines(await me(app, jar))).toEqual([])
      expect(app.calls("updateSession")).toBe(0)
      expect((await store.adapter.getSessionAndUser(hashSessionToken(token)))!.session.expires).toEqual(created)

      // Past updateAge: the first read slides the expiry (one write) and requireAuth sends the new cookie.
      const later = start + (UPDATE_AGE + 1) * 1000
      jest.setSystemTime(later)
      const refreshed = await me(app, jar)
      expect(refreshed.status).toBe(200)
      const slid = new Date(later + MAX_AGE * 1000)
      expect(sessionLines(refreshed)).toEqual([
        `${SESSION_COOKIE}=${token}; Path=/; Expires=${slid.toUTCString()}; HttpOnly; SameSite=Lax`,
      ])
      expect(app.calls("updateSession")).toBe(1)
      expect((await store.adapter.getSessionAndUser(hashSessionToken(token)))!.session.expires).toEqual(slid)

      // Right after: the new expiry is fresh again, so further reads write nothing.
      jest.setSystemTime(later + 60_000)
      expect((await me(app, jar)).status).toBe(200)
      expect((await sessionOf(app, jar)).status).toBe(200)
      expect(app.calls("updateSession")).toBe(1)
      expect(app.errors).toEqual([])
    })

    it("sign-out deletes the row and clears the cookie; the old token then gets 401 and a null session", async () => {
      const app = await startApp(express, store)
      const name = freshName()
      const { jar } = await signIn(app, name)
      const token = jar[SESSION_COOKIE]!
      const csrf = await request(app.server).get("/auth/csrf").set("Cookie", cookieHeader(jar))
      const out = await request(app.server)
        .post("/auth/signout")
        .set("Cookie", cookieHeader(cookieJar(jar, csrf.headers["set-cookie"])))
        .type("form")
        .send({ csrfToken: csrf.body.csrfToken, callbackUrl: "/bye" })
      expect(out.status).toBe(302)
      expect(out.headers.location).toBe(`${app.origin}/bye`)
      expect(sessionLines(out)).toEqual([CLEARED])
      expect(app.calls("deleteSession")).toBe(1)
      expect(await store.adapter.getSessionAndUser(hashSessionToken(token))).toBeNull()
      expect(await store.sessionRows(`user-${name}`)).toBe(0)

      // A client that kept the old cookie anyway.
      const replay = await me(app, jar)
      expect(replay.status).toBe(401)
      expect(replay.body).toEqual({ error: "Unauthorized" })
      expect((await sessionOf(app, jar)).body).toBeNull()
      expect(app.errors).toEqual([])
    })

    it("signing in again issues a new token and kills the old one (ASVS 7.2.4)", async () => {
      const app = await startApp(express, store)
      const name = freshName()
      const first = await signIn(app, name)
      const oldToken = first.jar[SESSION_COOKIE]!
      const second = await signIn(app, name, first.jar)
      expect(second.response.status).toBe(302)
      const newToken = second.jar[SESSION_COOKIE]!
      expect(newToken).toBeTruthy()
      expect(newToken).not.toBe(oldToken)
      expect(await store.adapter.getSessionAndUser(hashSessionToken(oldToken))).toBeNull()
      expect((await store.adapter.getSessionAndUser(hashSessionToken(newToken)))?.session.userId).toBe(`user-${name}`)
      expect(await store.sessionRows(`user-${name}`)).toBe(1)

      expect((await me(app, { [SESSION_COOKIE]: oldToken })).status).toBe(401)
      expect((await me(app, second.jar)).status).toBe(200)
      // The user was found again, not created twice.
      expect(app.calls("createUser")).toBe(1)
      expect(app.errors).toEqual([])
    })
  })

  it("20 concurrent uses (confirmation page, then POST) of one magic link: exactly one signs in, one session row", async () => {
    const app = await startApp(express5, store)
    const email = `${freshName()}@example.test`
    const csrf = await request(app.server).get("/auth/csrf")
    const jar = cookieJar({}, csrf.headers["set-cookie"])
    const sent = await request(app.server)
      .post("/auth/signin/email")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, email, callbackUrl: "/dashboard" })
    expect(sent.status).toBe(302)
    expect(sent.headers.location).toBe(`${app.origin}/auth/verify-request?provider=email&type=email`)
    expect(app.links).toHaveLength(1)
    const link = app.links[0]!
    expect(new URL(link).origin).toBe(app.origin)

    // Twenty confirmation pages first (once the link is used, a page would say so instead), then twenty POSTs at once.
    const pages = await Promise.all(Array.from({ length: 20 }, () => fetch(link, { redirect: "manual" })))
    expect(pages.map((p) => p.status)).toEqual(Array(20).fill(200))
    const responses = await Promise.all(pages.map((page) => postConfirmation(link, page)))
    const winners = responses.filter((r) => r.headers.get("location") === `${app.origin}/dashboard`)
    const losers = responses.filter((r) => r !== winners[0])
    expect(winners).toHaveLength(1)
    for (const r of losers) {
      expect(r.status).toBe(302)
      expect(r.headers.get("location")).toBe(`${app.origin}/auth/error?error=Verification`)
      expect(r.headers.getSetCookie().filter((l) => l.startsWith(`${SESSION_COOKIE}=`))).toEqual([])
    }
    const cookie = winners[0]!.headers.getSetCookie().find((l) => l.startsWith(`${SESSION_COOKIE}=`))!
    const token = cookie.slice(SESSION_COOKIE.length + 1, cookie.indexOf(";"))
    const found = await store.adapter.getSessionAndUser(hashSessionToken(token))
    expect(found?.user).toMatchObject({ email, emailVerified: expect.any(Date) })
    expect(await store.sessionRows(found!.user.id)).toBe(1)
    expect(app.calls("useVerificationToken")).toBe(20)
    expect(app.calls("createUser")).toBe(1)
    expect(app.calls("createSession")).toBe(1)
    expect(app.errors.map((e) => (e as AuthError).type)).toEqual(Array(19).fill("Verification"))
  })
}

describe("memory adapter through Express", () => databaseSessionSuite(memoryStore))
describe("SQLite adapter through Express", () => databaseSessionSuite(sqliteStore))
describeWithService(POSTGRES, "PostgreSQL adapter through Express", () => databaseSessionSuite(postgresStore))
describeWithService(REDIS, "Redis adapter through Express", () => databaseSessionSuite(redisStore))

describeWithService(POSTGRES, "OAuth sign-in with account linking on PostgreSQL through Express", () => {
  let store: Awaited<ReturnType<typeof postgresStore>>
  let op: StartedOidcProvider
  let app: TestApp
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end()
  let server: Server

  beforeAll(async () => {
    store = await postgresStore()
    // The app's port must be known to register the redirect URIs, and the OP's issuer to configure the app.
    server = createServer((req, res) => handler(req, res))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const origin = originOf(server)
    op = await startOidcProvider({ redirectUris: ["op", "op2"].map((id) => `${origin}/auth/callback/${id}`) })
  })
  afterAll(async () => {
    await op.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await store.teardown()
  })

  const oidc = (id: string): OAuthConfig => ({
    id,
    name: `OP ${id}`,
    type: "oidc",
    issuer: op.issuer,
    clientId: op.clientId,
    clientSecret: op.clientSecret,
    allowInsecureRequests: true,
    checks: ["pkce", "state", "nonce"],
  })

  beforeEach(() => {
    const { adapter, calls } = instrument(store.adapter)
    const errors: Error[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      logger: { error: (e) => errors.push(e), warn: () => undefined, debug: () => undefined },
      providers: [oidc("op"), oidc("op2")],
    }
    const express = express5()
    express.use("/auth", ExpressAuth(config))
    express.get("/me", requireAuth(config), (_req, res) => {
      res.json(res.locals.session)
    })
    handler = express
    app = { server, origin: originOf(server), config, calls, errors, links: [] }
  })

  /** csrf → POST /auth/signin/:id → the OP's login and consent → GET /auth/callback/:id; returns the callback. */
  async function oauthSignIn(providerId: string, login: string, jar: Record<string, string> = {}) {
    const csrf = await request(server).get("/auth/csrf").set("Cookie", cookieHeader(jar))
    let cookies = cookieJar(jar, csrf.headers["set-cookie"])
    const start = await request(server)
      .post(`/auth/signin/${providerId}`)
      .set("Cookie", cookieHeader(cookies))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, callbackUrl: "/dashboard" })
    expect(start.status).toBe(302)
    cookies = cookieJar(cookies, start.headers["set-cookie"])
    const delivery = await driveAuthorization(start.headers.location!, `${app.origin}/auth/callback/`, { login })
    const callback = await request(server)
      .get(`${delivery.url.pathname}?${delivery.params}`)
      .set("Cookie", cookieHeader(cookies))
    return { callback, jar: cookieJar(cookies, callback.headers["set-cookie"]) }
  }

  const rows = async (sql: string, values: unknown[]) =>
    (await store.pool.query(sql.replaceAll("$schema", `"${store.schema}"`), values)).rows

  it("a first sign-in creates the user and its account in the one callback, then a database session", async () => {
    const login = `olivia-${randomSuffix()}`
    const { callback, jar } = await oauthSignIn("op", login)
    expect(app.errors).toEqual([])
    expect(callback.status).toBe(302)
    expect(callback.headers.location).toBe(`${app.origin}/dashboard`)

    const users = await rows("SELECT id, email, name, email_verified FROM $schema.users WHERE lower(email) = $1", [
      `${login}@example.test`,
    ])
    expect(users).toEqual([
      { id: expect.any(String), email: `${login}@example.test`, name: `User ${login}`, email_verified: null },
    ])
    const accounts = await rows(
      "SELECT user_id, type, provider, provider_account_id, token_type, access_token, id_token FROM $schema.accounts WHERE user_id = $1",
      [users[0].id],
    )
    expect(accounts).toEqual([
      {
        user_id: users[0].id,
        type: "oidc",
        provider: "op",
        provider_account_id: login,
        token_type: expect.stringMatching(/^bearer$/i),
        access_token: expect.any(String),
        id_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      },
    ])
    const sessions = await rows("SELECT user_id FROM $schema.sessions WHERE session_token = $1", [
      hashSessionToken(jar[SESSION_COOKIE]!),
    ])
    expect(sessions).toEqual([{ user_id: users[0].id }])
    const session = await me(app, jar)
    expect(session.status).toBe(200)
    expect(session.body.user).toMatchObject({ email: `${login}@example.test`, name: `User ${login}` })
  })

  it("the known account signs in as its user with no new rows; signed in, a second provider links to it", async () => {
    const login = `peter-${randomSuffix()}`
    await oauthSignIn("op", login)
    const [{ id: userId }] = await rows("SELECT id FROM $schema.users WHERE lower(email) = $1", [
      `${login}@example.test`,
    ])

    const totals = async () => ({
      users: (await rows("SELECT count(*)::int AS n FROM $schema.users", []))[0].n,
      accounts: (await rows("SELECT count(*)::int AS n FROM $schema.accounts", []))[0].n,
    })
    const before = await totals()

    const again = await oauthSignIn("op", login)
    expect(again.callback.headers.location).toBe(`${app.origin}/dashboard`)
    expect((await store.adapter.getSessionAndUser(hashSessionToken(again.jar[SESSION_COOKIE]!)))?.user.id).toBe(userId)
    expect(await totals()).toEqual(before)

    const linked = await oauthSignIn("op2", `${login}-work`, again.jar)
    expect(linked.callback.headers.location).toBe(`${app.origin}/dashboard`)
    expect(await totals()).toEqual({ users: before.users, accounts: before.accounts + 1 })
    const accounts = await rows(
      "SELECT provider, provider_account_id FROM $schema.accounts WHERE user_id = $1 ORDER BY provider",
      [userId],
    )
    expect(accounts).toEqual([
      { provider: "op", provider_account_id: login },
      { provider: "op2", provider_account_id: `${login}-work` },
    ])
    expect(await rows("SELECT id FROM $schema.users WHERE lower(email) = $1", [`${login}-work@example.test`])).toEqual(
      [],
    )
    // Linking re-authenticated: a new session token for the same user, the previous one is gone.
    expect(linked.jar[SESSION_COOKIE]).not.toBe(again.jar[SESSION_COOKIE])
    expect(await store.adapter.getSessionAndUser(hashSessionToken(again.jar[SESSION_COOKIE]!))).toBeNull()
    expect((await store.adapter.getSessionAndUser(hashSessionToken(linked.jar[SESSION_COOKIE]!)))?.user.id).toBe(userId)
    expect(app.errors).toEqual([])
  })
})

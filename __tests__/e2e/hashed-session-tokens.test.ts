// Database session tokens are stored hashed on every adapter; raw rows written by Auth.js keep working until they
// end, and a stored hash presented as a cookie never opens a session (a leaked table cannot be replayed).
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { randomBytes } from "node:crypto"
import Database from "better-sqlite3"
import Redis from "ioredis"
import { Pool } from "pg"
import { Auth } from "../../lib/core"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { PostgresAdapter, migrate } from "../../lib/storage/postgres/adapter"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import { hashSessionToken } from "../../lib/core/session/token"
import { DATABASE_URL, POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { credentialsConfig, csrf, makeRequest, setCookies, signIn } from "../core/helpers"
import { fakeDateOnly } from "../fixtures/clock"

const NAME = "__Secure-authjs.session-token"
const DAY = 24 * 3600 * 1000

interface Subject {
  adapter: Required<Adapter>
  /** Every session key as it sits in the storage itself (column, Redis key), not through the adapter. */
  storedKeys(): Promise<string[]>
  teardown(): Promise<void>
}

function memorySubject(): Promise<Subject> {
  const adapter = MemoryAdapter()
  const keys: string[] = []
  const create = adapter.createSession.bind(adapter)
  adapter.createSession = async (session) => {
    keys.push(session.sessionToken)
    return create(session)
  }
  return Promise.resolve({ adapter, storedKeys: async () => [...keys], teardown: async () => undefined })
}

function sqliteSubject(): Promise<Subject> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-hashed-"))
  const db = new Database(join(dir, "auth.sqlite"))
  return Promise.resolve({
    adapter: SQLiteAdapter(db),
    storedKeys: async () =>
      (db.prepare("SELECT session_token FROM sessions").all() as { session_token: string }[]).map(
        (r) => r.session_token,
      ),
    teardown: async () => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  })
}

async function postgresSubject(): Promise<Subject> {
  const schema = `gatehouse_hashed_${randomSuffix()}`
  const pool = new Pool({ connectionString: DATABASE_URL, max: 4 })
  await migrate(pool, { schema })
  return {
    adapter: PostgresAdapter(pool, { schema }),
    storedKeys: async () =>
      (await pool.query(`SELECT session_token FROM "${schema}".sessions`)).rows.map(
        (r: { session_token: string }) => r.session_token,
      ),
    teardown: async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await pool.end()
    },
  }
}

async function redisSubject(): Promise<Subject> {
  const prefix = `gatehouse-hashed-${randomSuffix()}:`
  const client = new Redis(REDIS_URL, { lazyConnect: true })
  await client.connect()
  return {
    adapter: RedisAdapter(client, { prefix }),
    storedKeys: async () => (await client.keys(`${prefix}session:*`)).map((k) => k.slice(`${prefix}session:`.length)),
    teardown: async () => {
      const keys = await client.keys(`${prefix}*`)
      if (keys.length > 0) await client.del(...keys)
      await client.quit()
    },
  }
}

const readSession = (config: ReturnType<typeof credentialsConfig>, token: string) =>
  Auth(makeRequest("/auth/session", { cookies: { [NAME]: token } }), config)

async function signOut(config: ReturnType<typeof credentialsConfig>, token: string): Promise<Response> {
  const pair = await csrf(config)
  return Auth(
    makeRequest("/auth/signout", { cookies: { [NAME]: token, ...pair.cookies }, body: { csrfToken: pair.token } }),
    config,
  )
}

function suite(open: () => Promise<Subject>): void {
  let s: Subject
  beforeAll(async () => {
    s = await open()
  })
  afterAll(async () => s.teardown())
  afterEach(() => jest.useRealTimers())

  /** A user and a session row written the way Auth.js writes it: the raw token as the key. */
  async function seedRaw(expires: Date): Promise<{ token: string; userId: string }> {
    const userId = `legacy-${randomSuffix()}`
    await s.adapter.createUser({ id: userId, name: "Legacy", email: `${userId}@example.test`, emailVerified: null })
    const token = randomBytes(32).toString("hex")
    await s.adapter.createSession({ sessionToken: token, userId, expires })
    return { token, userId }
  }

  it("a new session row holds sha256:<hex> of the cookie's token, never the token", async () => {
    const config = credentialsConfig({ adapter: s.adapter, session: { strategy: "database" } })
    const token = (await signIn(config))[NAME]!
    expect(token).toMatch(/^[0-9a-f]{64}$/)
    const keys = await s.storedKeys()
    expect(keys).toContain(hashSessionToken(token))
    expect(hashSessionToken(token)).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(keys.join("\n")).not.toContain(token)
    expect(await s.adapter.getSessionAndUser(token)).toBeNull()

    const response = await readSession(config, token)
    expect(((await response.json()) as { user: { email: string } }).user.email).toBe("ada@example.test")
  })

  it("the stored hash presented as a cookie opens nothing and leaves the row alone", async () => {
    const config = credentialsConfig({ adapter: s.adapter, session: { strategy: "database" } })
    const token = (await signIn(config))[NAME]!
    const leaked = hashSessionToken(token)
    const response = await readSession(config, leaked)
    expect(await response.json()).toBeNull()
    expect(setCookies(response).get(NAME)).toMatchObject({ value: "", maxAge: 0 })
    const out = await signOut(config, leaked)
    expect(out.status).toBe(302)
    expect(await s.adapter.getSessionAndUser(leaked)).not.toBeNull()
    expect(((await (await readSession(config, token)).json()) as { user: unknown } | null)?.user).toBeTruthy()
  })

  it("sign-out deletes the hashed row; the token then reads as no session", async () => {
    const signOutEvent = jest.fn()
    const config = credentialsConfig({
      adapter: s.adapter,
      session: { strategy: "database" },
      events: { signOut: signOutEvent },
    })
    const token = (await signIn(config))[NAME]!
    const out = await signOut(config, token)
    expect(setCookies(out).get(NAME)).toMatchObject({ value: "", maxAge: 0 })
    expect(await s.adapter.getSessionAndUser(hashSessionToken(token))).toBeNull()
    expect(signOutEvent).toHaveBeenCalledWith({
      session: expect.objectContaining({ sessionToken: hashSessionToken(token) }),
    })
    expect(await (await readSession(config, token)).json()).toBeNull()
  })

  it("a raw row written by Auth.js still reads, slides its expiry in place, and signs out", async () => {
    const start = Date.now()
    fakeDateOnly(start)
    const config = credentialsConfig({ adapter: s.adapter, session: { strategy: "database" } })
    // Issued 2 days ago with a 30-day life: due for the daily expiry update.
    const { token, userId } = await seedRaw(new Date(start + 28 * DAY))
    const first = await readSession(config, token)
    expect(((await first.json()) as { user: { email: string } }).user.email).toBe(`${userId}@example.test`)
    expect(setCookies(first).get(NAME)?.value).toBe(token)
    const row = await s.adapter.getSessionAndUser(token)
    expect(row?.session.expires.valueOf()).toBe(start + 30 * DAY)
    expect(await s.adapter.getSessionAndUser(hashSessionToken(token))).toBeNull()

    const out = await signOut(config, token)
    expect(out.status).toBe(302)
    expect(await s.adapter.getSessionAndUser(token)).toBeNull()
    expect(await (await readSession(config, token)).json()).toBeNull()
  })

  it("an expired raw row is deleted on read and answers null", async () => {
    const config = credentialsConfig({ adapter: s.adapter, session: { strategy: "database" } })
    const { token } = await seedRaw(new Date(Date.now() + 60_000))
    fakeDateOnly(Date.now() + 120_000)
    const response = await readSession(config, token)
    expect(await response.json()).toBeNull()
    expect(setCookies(response).get(NAME)).toMatchObject({ value: "", maxAge: 0 })
    expect(await s.adapter.getSessionAndUser(token)).toBeNull()
  })

  it("an expired hashed row is deleted on read and answers null", async () => {
    const config = credentialsConfig({ adapter: s.adapter, session: { strategy: "database", maxAge: 60 } })
    const token = (await signIn(config))[NAME]!
    fakeDateOnly(Date.now() + 120_000)
    expect(await (await readSession(config, token)).json()).toBeNull()
    jest.useRealTimers()
    expect(await s.adapter.getSessionAndUser(hashSessionToken(token))).toBeNull()
  })

  it("signing in over a raw session deletes the raw row and issues a hashed one", async () => {
    const config = credentialsConfig({ adapter: s.adapter, session: { strategy: "database" } })
    const { token } = await seedRaw(new Date(Date.now() + DAY))
    const pair = await csrf(config)
    const response = await Auth(
      makeRequest("/auth/callback/credentials", {
        cookies: { [NAME]: token, ...pair.cookies },
        body: { csrfToken: pair.token, username: "ada", password: "pw" },
      }),
      config,
    )
    const fresh = setCookies(response).get(NAME)!.value
    expect(fresh).not.toBe(token)
    expect(await s.adapter.getSessionAndUser(token)).toBeNull()
    expect(await s.adapter.getSessionAndUser(hashSessionToken(fresh))).not.toBeNull()
  })
}

describe("hashed session tokens: memory adapter", () => suite(memorySubject))
describe("hashed session tokens: SQLite adapter", () => suite(sqliteSubject))
describeWithService(POSTGRES, "hashed session tokens: PostgreSQL adapter", () => suite(postgresSubject))
describeWithService(REDIS, "hashed session tokens: Redis adapter", () => suite(redisSubject))

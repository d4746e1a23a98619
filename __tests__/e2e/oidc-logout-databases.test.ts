// End to end: the OIDC logout rows of next-wave C.3 that involve database sessions (C1, C5, C6, C7, C9, C12), on every
// shipped adapter (memory, SQLite, PostgreSQL, Redis) with its own key-value store, against a real oidc-provider that
// reaches the app over HTTP and POSTs back-channel logout tokens to it.
import Database from "better-sqlite3"
import Redis from "ioredis"
import { Pool } from "pg"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { PostgresAdapter, migrate } from "../../lib/storage/postgres/adapter"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { DATABASE_URL, POSTGRES, REDIS, REDIS_URL, describeWithService, randomSuffix } from "../adapters/services"
import { fakeDateOnly } from "../fixtures/clock"
import { testOidcProvider, type StartedOidcProvider } from "../fixtures/oauth/oidc-provider"
import {
  Browser,
  endSessionElsewhere,
  logoutClaims,
  logoutForm,
  opToken,
  postLogoutToken,
  startLogoutApp,
  type LogoutApp,
  startLogoutOp,
} from "../fixtures/oidc-logout"

const SECRET = "oidc-logout-db-secret-0123456789abcdef0123456789abcdef"
type FullAdapter = Required<Adapter>

interface OpenDatabase {
  adapter: FullAdapter
  close(): Promise<void>
}

const databases: Array<[name: string, service: typeof POSTGRES | undefined, open: () => Promise<OpenDatabase>]> = [
  ["memory", undefined, async () => ({ adapter: MemoryAdapter(), close: async () => undefined })],
  [
    "SQLite",
    undefined,
    async () => {
      const db = new Database(":memory:")
      return { adapter: SQLiteAdapter(db), close: async () => void db.close() }
    },
  ],
  [
    "PostgreSQL",
    POSTGRES,
    async () => {
      const schema = `gatehouse_bcl_${randomSuffix()}`
      const pool = new Pool({ connectionString: DATABASE_URL, max: 6 })
      await migrate(pool, { schema })
      return {
        adapter: PostgresAdapter(pool, { schema }),
        close: async () => {
          await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
          await pool.end()
        },
      }
    },
  ],
  [
    "Redis",
    REDIS,
    async () => {
      const prefix = `gatehouse-bcl-${randomSuffix()}:`
      const client = new Redis(REDIS_URL, { lazyConnect: true })
      await client.connect()
      return {
        adapter: RedisAdapter(client, { prefix }),
        close: async () => {
          let cursor = "0"
          do {
            const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000)
            if (keys.length > 0) await client.del(...keys)
            cursor = next
          } while (cursor !== "0")
          await client.quit()
        },
      }
    },
  ],
]

let app: LogoutApp
let APP: string
let op: StartedOidcProvider
const warnings: string[] = []
const backchannelErrors: unknown[] = []
const signOutEvents: Array<{ reason?: string }> = []

beforeAll(async () => {
  // The app listens first: the OP registers URLs on its origin.
  app = await startLogoutApp()
  APP = app.url
  op = await startLogoutOp(APP, backchannelErrors)
})
afterAll(async () => {
  await op.close()
  await app.close()
})
beforeEach(() => {
  warnings.length = 0
  backchannelErrors.length = 0
  signOutEvents.length = 0
})
afterEach(() => jest.useRealTimers())

for (const [name, service, open] of databases) {
  const suite = () => {
    let db: OpenDatabase
    let dbConfig: AuthConfig
    let jwtConfig: AuthConfig
    // OP accounts are shared by the suites: each uses its own logins.
    const who = (login: string) => `${login}-${name.toLowerCase()}`

    beforeAll(async () => {
      db = await open()
      const base: AuthConfig = {
        secret: SECRET,
        trustHost: true,
        // The adapter's own key-value store, shared by the JWT twin (replayed jti, markers, watermarks).
        store: db.adapter.store,
        logger: { error: () => undefined, warn: (code) => warnings.push(code), debug: () => undefined },
        events: { signOut: (message) => void signOutEvents.push(message as { reason?: string }) },
        providers: [
          testOidcProvider(op, "corp", {
            checks: ["pkce", "state", "nonce"],
            logout: { rpInitiated: true, backchannel: true },
          }),
          testOidcProvider(op, "plain", { checks: ["pkce", "state", "nonce"] }),
        ],
      }
      dbConfig = { ...base, adapter: db.adapter, session: { strategy: "database" } }
      jwtConfig = base
    })
    afterAll(async () => {
      await db.close()
    })

    /** How many database sessions of the user behind `login` (a corp account) were issued through `provider`. */
    async function rowsOf(login: string, provider = "corp"): Promise<number> {
      const user = await db.adapter.getUserByAccount({ provider: "corp", providerAccountId: login })
      if (!user) return 0
      return (await db.adapter.listSessionsByUserId(user.id)).filter((s) => s.provider === provider).length
    }
    async function rowsTotal(login: string): Promise<number> {
      const user = await db.adapter.getUserByAccount({ provider: "corp", providerAccountId: login })
      return user ? (await db.adapter.listSessionsByUserId(user.id)).length : 0
    }

    test("the session rows carry the provider, the OP's sid and sub, and the ID token's iat", async () => {
      app.use(dbConfig)
      const login = who("ivy")
      const browser = new Browser(app)
      await browser.signIn("corp", login)
      const user = await db.adapter.getUserByAccount({ provider: "corp", providerAccountId: login })
      const [row] = await db.adapter.listSessionsByUserId(user!.id)
      expect(row).toMatchObject({ provider: "corp", idpSub: login, idpSid: expect.any(String) })
      const now = Math.floor(Date.now() / 1000)
      expect(row!.authTime).toBeGreaterThan(now - 60)
      expect(row!.authTime).toBeLessThanOrEqual(now)
      // The session callback's output never carries them.
      expect(JSON.stringify(await browser.session())).not.toMatch(/idp|corp|auth_?time/i)
    })

    test("C1 the session row goes, the OP's end-session URL carries the hint, the OP brings the user to /bye", async () => {
      app.use(dbConfig)
      const login = who("carol")
      const browser = new Browser(app)
      await browser.signIn("corp", login)
      const user = await db.adapter.getUserByAccount({ provider: "corp", providerAccountId: login })
      const account = await db.adapter.getAccount(login, "corp")
      expect(await db.adapter.listSessionsByUserId(user!.id)).toHaveLength(1)

      const response = await browser.signOut()
      expect(response.status).toBe(302)
      const location = response.headers.get("location") as string
      expect(location.startsWith(`${op.issuer}/session/end?`)).toBe(true)
      const url = new URL(location)
      expect(url.searchParams.get("client_id")).toBe("app")
      expect(url.searchParams.get("id_token_hint")).toBe(account?.id_token)
      expect(location).toContain(`post_logout_redirect_uri=${encodeURIComponent(`${APP}/auth/signout-callback/corp`)}`)
      expect(url.searchParams.get("state")).toBeTruthy()
      expect(await db.adapter.listSessionsByUserId(user!.id)).toEqual([])
      expect(browser.cookies.has("authjs.session-token")).toBe(false)

      const back = await browser.confirmEndSession(location)
      expect(back.startsWith(`${APP}/auth/signout-callback/corp?`)).toBe(true)
      const landing = await browser.request(back)
      expect(landing.status).toBe(302)
      expect(landing.headers.get("location")).toBe(`${APP}/bye`)
      // The OP also told us over the back channel (the session was already gone): it got its 200.
      expect(backchannelErrors).toEqual([])
    })

    test("C5/C7/C12 the OP ends one OP session: that session ends, the other stays, the replay is refused", async () => {
      app.use(dbConfig)
      const login = who("alice")
      const s1 = new Browser(app)
      const s2 = new Browser(app)
      await s1.signIn("corp", login)
      await s2.signIn("corp", login)
      expect(await rowsOf(login)).toBe(2)

      // Capture the token the OP sends, then let the request through to the app.
      const captured: string[] = []
      const listener = (req: { url?: string; on: (e: string, f: (c: Buffer) => void) => void }) => {
        if (!req.url?.startsWith("/auth/backchannel-logout/")) return
        req.on("data", (c: Buffer) => captured.push(c.toString()))
      }
      app.server.prependListener("request", listener as never)
      // A second RP starts logout at the OP for S1's OP session (C12).
      const next = await s1.confirmEndSession(endSessionElsewhere(op))
      app.server.removeListener("request", listener as never)
      expect(next).toBe("http://localhost:1/bye")
      expect(backchannelErrors).toEqual([])
      expect(captured.join("")).toContain("logout_token=")

      expect(await s1.session()).toBeNull()
      expect(await s2.session()).toMatchObject({ user: { name: `User ${login}` } })
      expect(await rowsOf(login)).toBe(1)
      expect(signOutEvents.filter((e) => e.reason === "backchannel")).toHaveLength(1)

      // C7: the same token again.
      const replay = await postLogoutToken(app, "corp", captured.join(""))
      expect(replay.status).toBe(400)
      expect(((await replay.json()) as { error: string }).error).toBe("invalid_request")
      expect(await rowsOf(login)).toBe(1)

      // The surviving session still signs out through the OP: the provider is read from its row.
      const signOut = await s2.signOut()
      expect(signOut.headers.get("location")?.startsWith(`${op.issuer}/session/end?`)).toBe(true)
      expect(await rowsOf(login)).toBe(0)
    })

    test("C6/C9 a sub-only token ends every corp session of the user, not other providers; a later sign-in stays", async () => {
      const start = Date.now()
      fakeDateOnly(start) // OP and app share this clock: every sign-in below happens at `start` (whole seconds)
      const login = who("bob")
      app.use(dbConfig)
      const browsers = [new Browser(app), new Browser(app), new Browser(app)]
      for (const b of browsers) await b.signIn("corp", login)
      // The same user also signs in through another provider (linked while signed in; that session replaces the
      // corp one).
      const other = new Browser(app)
      await other.signIn("corp", login)
      await other.signIn("plain", login)
      expect(await rowsOf(login)).toBe(3)
      expect(await rowsTotal(login)).toBe(4)
      app.use(jwtConfig)
      const jwtOld = new Browser(app)
      await jwtOld.signIn("corp", login)

      const token = await opToken(op, logoutClaims(op.issuer, "app", { sub: login }))
      app.use(dbConfig)
      const response = await postLogoutToken(app, "corp", logoutForm(token))
      expect(response.status).toBe(200)
      expect(response.headers.get("cache-control")).toBe("no-store")
      expect(await response.text()).toBe("")
      expect(await rowsOf(login)).toBe(0)
      expect(await rowsTotal(login)).toBe(1)
      for (const b of browsers) expect(await b.session()).toBeNull()
      expect(await other.session()).toMatchObject({ user: { name: `User ${login}` } })
      expect(signOutEvents.filter((e) => e.reason === "backchannel")).toHaveLength(3)

      app.use(jwtConfig)
      expect(await jwtOld.session()).toBeNull()
      jest.setSystemTime(start + 5000) // C9: the user signs in again at t + 5 s
      const later = new Browser(app)
      await later.signIn("corp", login)
      for (let i = 0; i < 3; i++) expect(await later.session()).toMatchObject({ user: { name: `User ${login}` } })
      expect(await jwtOld.session()).toBeNull()
      app.use(dbConfig)
      const laterDb = new Browser(app)
      await laterDb.signIn("corp", login)
      for (let i = 0; i < 3; i++) expect(await laterDb.session()).toMatchObject({ user: { name: `User ${login}` } })
      for (const b of browsers) expect(await b.session()).toBeNull()
    })
  }
  if (service) describeWithService(service, `${name} adapter`, suite)
  else describe(`${name} adapter`, suite)
}

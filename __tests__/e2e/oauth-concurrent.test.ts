// End to end: two first OAuth sign-ins for the same new account race (two tabs, a double click). Both look the
// account up before either writes (a signIn callback holds them at a barrier), so the second write breaks a
// uniqueness rule; the adapter answers a coded conflict and the callback looks the account up again instead of
// failing. Real oidc-provider, PostgreSQL (transactional writes) and SQLite (create-then-link).
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import { Pool } from "pg"
import { PostgresAdapter, migrate } from "../../lib/storage/postgres/adapter"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import { Auth } from "../../lib/core"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { AuthError } from "../../lib/errors"
import { decode } from "../../lib/jwt"
import { DATABASE_URL, POSTGRES, describeWithService, randomSuffix } from "../adapters/services"
import {
  driveAuthorization,
  startOidcProvider,
  testOidcProvider,
  type StartedOidcProvider,
} from "../fixtures/oauth/oidc-provider"

const APP = "http://app.test"
const SECRET = "concurrent-secret-0123456789abcdef0123456789abcdef"
const SESSION_COOKIE = "authjs.session-token"
let op: StartedOidcProvider

beforeAll(async () => {
  op = await startOidcProvider({ redirectUris: [`${APP}/auth/callback/op`] })
})
afterAll(async () => op.close())

interface Rows {
  users(): Promise<number>
  accounts(): Promise<number>
}

/** Cookies of one browser, as `name=value` pairs. */
function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
}

function keep(jar: Map<string, string>, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";")
    const eq = pair.indexOf("=")
    if (/Max-Age=0/i.test(line)) jar.delete(pair.slice(0, eq))
    else jar.set(pair.slice(0, eq), pair.slice(eq + 1))
  }
}

async function call(config: AuthConfig, jar: Map<string, string>, path: string, form?: Record<string, string>) {
  const headers = new Headers({ cookie: cookieHeader(jar) })
  if (form) headers.set("content-type", "application/x-www-form-urlencoded")
  const response = await Auth(
    new Request(`${APP}${path}`, {
      method: form ? "POST" : "GET",
      headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
    }),
    config,
  )
  keep(jar, response)
  return response
}

/** Runs a browser up to the callback URL the OP sends it back with (not yet requested). */
async function untilCallback(config: AuthConfig, jar: Map<string, string>, login: string): Promise<string> {
  const csrf = (await (await call(config, jar, "/auth/csrf")).json()) as { csrfToken: string }
  const start = await call(config, jar, "/auth/signin/op", { csrfToken: csrf.csrfToken, callbackUrl: `${APP}/home` })
  expect(start.status).toBe(302)
  const delivery = await driveAuthorization(start.headers.get("location")!, `${APP}/auth/callback/`, { login })
  return `${delivery.url.pathname}?${delivery.params}`
}

function raceSuite(name: string, open: () => Promise<{ adapter: Adapter; rows: Rows; close(): Promise<void> }>): void {
  describe(`${name}: two parallel first sign-ins for the same new account`, () => {
    it("both end signed in as the same user; one user row, one account row", async () => {
      const store = await open()
      try {
        const errors: Error[] = []
        let arrived = 0
        let release!: () => void
        const barrier = new Promise<void>((resolve) => (release = resolve))
        const config: AuthConfig = {
          secret: SECRET,
          trustHost: true,
          adapter: store.adapter,
          session: { strategy: "jwt" },
          logger: { error: (e) => errors.push(e), warn: () => undefined, debug: () => undefined },
          providers: [testOidcProvider(op, "op", { checks: ["pkce", "state", "nonce"] })],
          callbacks: {
            // Both requests have looked the account up (and found nothing) before either writes.
            signIn: async () => {
              arrived += 1
              if (arrived === 2) release()
              await barrier
              return true
            },
          },
        }
        const login = `racer-${randomSuffix()}`
        const jars = [new Map<string, string>(), new Map<string, string>()]
        const urls = await Promise.all(jars.map((jar) => untilCallback(config, jar, login)))
        const responses = await Promise.all(jars.map((jar, i) => call(config, jar, urls[i])))

        expect(arrived).toBe(2)
        const locations = responses.map((r) => [r.status, r.headers.get("location")])
        // The winner is a new user (pages.newUser is unset, so both go to the callback URL).
        expect(locations).toEqual([
          [302, `${APP}/home`],
          [302, `${APP}/home`],
        ])
        const subs = await Promise.all(
          jars.map(async (jar) => {
            const token = jar.get(SESSION_COOKIE)
            expect(token).toBeTruthy()
            return (await decode({ token: token!, secret: SECRET, salt: SESSION_COOKIE }))?.sub
          }),
        )
        expect(subs[0]).toBeTruthy()
        expect(subs[1]).toBe(subs[0])
        expect(await store.rows.users()).toBe(1)
        expect(await store.rows.accounts()).toBe(1)
        // The loser's failed write is logged as a coded conflict, nothing else went wrong.
        const codes = errors.map((e) => (e instanceof AuthError ? e.code : e.name))
        expect(codes.length).toBeGreaterThan(0)
        expect(new Set(codes)).toEqual(new Set(["adapter_conflict"]))
      } finally {
        await store.close()
      }
    })
  })
}

raceSuite("SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-race-"))
  const db = new Database(join(dir, "auth.sqlite"))
  const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
  return {
    adapter: SQLiteAdapter(db),
    rows: { users: async () => count("users"), accounts: async () => count("accounts") },
    close: async () => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})

describeWithService(POSTGRES, "PostgreSQL", () => {
  raceSuite("PostgreSQL", async () => {
    const schema = `gatehouse_race_${randomSuffix()}`
    const pool = new Pool({ connectionString: DATABASE_URL, max: 4 })
    await migrate(pool, { schema })
    const count = async (table: string) =>
      (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".${table}`)).rows[0].n as number
    return {
      adapter: PostgresAdapter(pool, { schema }),
      rows: { users: () => count("users"), accounts: () => count("accounts") },
      close: async () => {
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
        await pool.end()
      },
    }
  })
})

/**
 * Case (e): a `requireAuth` route with database sessions on PostgreSQL, in its own schema with one seeded user and
 * session, and a count of the SQL statements the pool sends (every client's `query` is wrapped).
 */
import { randomBytes } from "node:crypto"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import { Pool, type PoolClient } from "pg"
import type { AuthConfig } from "../lib"
// Seeding only: the row holds the token's hash, as the adapter stores every new session.
import { hashSessionToken } from "../lib/core/session/token"
import { loadPackage } from "./package"
import { COOKIE_NAME, SECRET } from "./servers"

export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** The user seeded for case (e); the route must answer with this email. */
export const DATABASE_USER = { id: "bench-db-user", name: "Bench DB User", email: "bench-db@example.com" }

export interface DatabaseCase {
  url: string
  label: string
  server: Server
  /** Request headers carrying the seeded session's token. */
  headers: Record<string, string>
  /** SQL statements sent to PostgreSQL since the pool was created. */
  queries(): number
  /** Drops the schema and ends the pool (the server is closed with the others). */
  stop(): Promise<void>
}

/** Wraps a pool client's `query` once, so every statement it sends (pool.query or a checked-out client) counts. */
function countQueries(client: PoolClient, onQuery: () => void): void {
  const marked = client as PoolClient & { benchCounted?: true }
  if (marked.benchCounted) return
  marked.benchCounted = true
  const query = client.query.bind(client) as (...args: unknown[]) => unknown
  ;(client as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    onQuery()
    return query(...args)
  }
}

/**
 * Starts case (e), or explains why it cannot run (PostgreSQL unreachable): the caller prints the reason and skips it.
 */
export async function startDatabaseCase(): Promise<DatabaseCase | { skipped: string }> {
  const where = new URL(DATABASE_URL).host
  const pool = new Pool({ connectionString: DATABASE_URL, max: 10, connectionTimeoutMillis: 2000 })
  pool.on("error", () => undefined)
  let queries = 0
  pool.on("connect", (client) => countQueries(client, () => queries++))
  try {
    await pool.query("SELECT 1")
  } catch (error) {
    await pool.end().catch(() => undefined)
    return { skipped: `PostgreSQL unreachable at ${where} (${(error as Error).message || String(error)})` }
  }

  const schema = `gatehouse_bench_${randomBytes(6).toString("hex")}`
  const stop = async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined)
    await pool.end()
  }
  try {
    const { requireAuth, PostgresAdapter, migrate, Credentials } = await loadPackage()
    await migrate(pool, { schema })
    const adapter = PostgresAdapter(pool, { schema })
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      providers: [Credentials({ authorize: () => null })],
    }
    // Expires a full maxAge (30 days) from now: no expiry slide falls due during the run (updateAge is one day).
    await adapter.createUser({ ...DATABASE_USER, emailVerified: null })
    const sessionToken = randomBytes(32).toString("hex")
    // Stored as the adapter stores every new session: the hash of the cookie's token (a raw row would be found only
    // through the legacy second lookup, two statements per check).
    await adapter.createSession({
      sessionToken: hashSessionToken(sessionToken),
      userId: DATABASE_USER.id,
      expires: new Date(Date.now() + 30 * 24 * 60 * 60 * 1000),
    })

    const app = express()
    app.get("/", requireAuth(config), (_req, res) => {
      res.json(res.locals.session)
    })
    const server = await new Promise<Server>((resolve, reject) => {
      const s = app.listen(0, "127.0.0.1", (error?: Error) => (error ? reject(error) : resolve(s)))
    })
    server.keepAliveTimeout = 60_000
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      label: `requireAuth, DB session (PostgreSQL)`,
      server,
      headers: { cookie: `${COOKIE_NAME}=${sessionToken}`, accept: "application/json" },
      queries: () => queries,
      stop,
    }
  } catch (error) {
    await stop().catch(() => undefined)
    throw error
  }
}

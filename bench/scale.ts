/**
 * `npm run bench:scale`: database sessions at scale. For SQLite, PostgreSQL (direct, and through PgBouncer in
 * transaction pooling mode) and Redis (one node, and a Redis Cluster), seeds 10,000, 100,000 and
 * 1,000,000 users with one session each (bulk: one SQL statement per batch, a Redis pipeline), and at each size measures
 * a `requireAuth` route with database sessions: requests/s, p99 latency and the RSS of this process (the servers; the
 * load generator runs in a child process), with the in-process session cache off and on (`session.cache`). Prints the
 * ratio of the largest size to the smallest with PASS/MISS (target >= 0.85: flat within 15%) and the RSS spread.
 * Everything it creates is its own (a temporary SQLite file, a schema, a key prefix) and is removed at the end.
 *
 * Environment: BENCH_SCALE_SIZES (default 10000,100000,1000000), BENCH_SCALE_BACKENDS (sqlite,postgres,pgbouncer,redis,redis-cluster),
 * BENCH_DURATION (seconds per run, default 5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (10), BENCH_SCALE_CACHE_TTL
 * (seconds, default 5; 0 skips the cached runs), DATABASE_URL, PGBOUNCER_URL, REDIS_URL,
 * REDIS_CLUSTER_URL. See bench/README.md.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import Database from "better-sqlite3"
import express from "express"
import { Cluster, Redis } from "ioredis"
import { Pool } from "pg"
import type { AuthConfig } from "../lib"
import type { Adapter } from "../lib/storage/adapter"
// Seeding only: rows hold the tokens' hashes, as the adapters store every new session.
import { hashSessionToken } from "../lib/core/session/token"
import { loadPackage } from "./package"
import { runLoad, type LoadResult } from "./loadgen"
import { COOKIE_NAME, SECRET } from "./servers"

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const PGBOUNCER_URL = process.env.PGBOUNCER_URL ?? "postgres://postgres@127.0.0.1:6432/test"
const REDIS_CLUSTER_URL = process.env.REDIS_CLUSTER_URL ?? "redis://127.0.0.1:7001"
/** Every seeded session expires this far ahead: no expiry slide (updateAge one day) falls due during a run. */
const EXPIRES_IN_MS = 30 * 24 * 60 * 60 * 1000
const BATCH = 10_000

const userId = (i: number) => `scale-u-${i}`
const token = (i: number) => `scale-t-${i}`

function envList(name: string, fallback: string): string[] {
  return (process.env[name] ?? fallback)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
}

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0, got ${raw}`)
  return value
}

interface Backend {
  name: string
  adapter: Adapter
  /** Adds users and sessions `from` .. `to - 1`. */
  seed(from: number, to: number): Promise<void>
  cleanup(): Promise<void>
}

async function sqliteBackend(): Promise<Backend> {
  const { SQLiteAdapter } = await loadPackage()
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-scale-"))
  const db = new Database(join(dir, "scale.sqlite"))
  const adapter = SQLiteAdapter(db)
  // better-sqlite3's user functions (the project's own typings of the driver declare only what the adapter uses).
  const native = db as unknown as { function(name: string, fn: (value: unknown) => string): void }
  native.function("gh_hash", (value) => hashSessionToken(String(value)))
  const insert = db.prepare(`
    WITH RECURSIVE n(i) AS (SELECT CAST(? AS INTEGER) UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
    INSERT INTO users (id, name, email, email_key, extra)
    SELECT 'scale-u-' || i, 'Scale ' || i, 'scale-' || i || '@example.com', 'scale-' || i || '@example.com', '{}' FROM n`)
  const sessions = db.prepare(`
    WITH RECURSIVE n(i) AS (SELECT CAST(? AS INTEGER) UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
    INSERT INTO sessions (session_token, user_id, expires) SELECT gh_hash('scale-t-' || i), 'scale-u-' || i, ? FROM n`)
  return {
    name: "SQLite",
    adapter,
    async seed(from, to) {
      const expires = Date.now() + EXPIRES_IN_MS
      for (let start = from; start < to; start += BATCH) {
        const end = Math.min(to, start + BATCH)
        db.exec("BEGIN")
        try {
          insert.run(start, end)
          sessions.run(start, end, expires)
          db.exec("COMMIT")
        } catch (error) {
          db.exec("ROLLBACK")
          throw error
        }
      }
    },
    async cleanup() {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** PostgreSQL, seeded directly; the adapter queries it directly or through PgBouncer (transaction pooling). */
async function postgresBackend(via: "direct" | "pgbouncer" = "direct"): Promise<Backend> {
  const { PostgresAdapter, migrate } = await loadPackage()
  const pool = new Pool({ connectionString: DATABASE_URL, max: 10, connectionTimeoutMillis: 2000 })
  pool.on("error", () => undefined)
  await pool.query("SELECT 1")
  const served =
    via === "direct" ? pool : new Pool({ connectionString: PGBOUNCER_URL, max: 10, connectionTimeoutMillis: 2000 })
  served.on("error", () => undefined)
  await served.query("SELECT 1")
  const schema = `gatehouse_scale_${randomBytes(6).toString("hex")}`
  await migrate(pool, { schema })
  return {
    name: via === "direct" ? "PostgreSQL" : "PostgreSQL via PgBouncer",
    adapter: PostgresAdapter(served, { schema }),
    async seed(from, to) {
      const expires = new Date(Date.now() + EXPIRES_IN_MS)
      for (let start = from; start < to; start += BATCH * 10) {
        const end = Math.min(to, start + BATCH * 10) - 1
        await pool.query(
          `INSERT INTO "${schema}".users (id, name, email)
           SELECT 'scale-u-' || i, 'Scale ' || i, 'scale-' || i || '@example.com' FROM generate_series($1::int, $2::int) i`,
          [start, end],
        )
        await pool.query(
          `INSERT INTO "${schema}".sessions (session_token, user_id, expires)
           SELECT 'sha256:' || encode(sha256(convert_to('scale-t-' || i, 'UTF8')), 'hex'), 'scale-u-' || i, $3
           FROM generate_series($1::int, $2::int) i`,
          [start, end, expires],
        )
      }
      await pool.query(`ANALYZE "${schema}".users, "${schema}".sessions`)
    },
    async cleanup() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined)
      await pool.end()
      if (served !== pool) await served.end()
    },
  }
}

/** Adds users and sessions `from` .. `to - 1` through the adapter's own methods, a batch of calls in flight at once. */
async function seedThroughAdapter(adapter: Adapter, from: number, to: number): Promise<void> {
  const expires = new Date(Date.now() + EXPIRES_IN_MS)
  for (let start = from; start < to; start += BATCH) {
    const end = Math.min(to, start + BATCH)
    const users: Promise<unknown>[] = []
    for (let i = start; i < end; i++) {
      const user = { id: userId(i), name: `Scale ${i}`, email: `scale-${i}@example.com`, emailVerified: null }
      users.push(Promise.resolve(adapter.createUser!(user)))
    }
    await Promise.all(users)
    const sessions: Promise<unknown>[] = []
    for (let i = start; i < end; i++) {
      const session = { sessionToken: hashSessionToken(token(i)), userId: userId(i), expires }
      sessions.push(Promise.resolve(adapter.createSession!(session)))
    }
    await Promise.all(sessions)
  }
}

async function redisBackend(): Promise<Backend> {
  const { RedisAdapter } = await loadPackage()
  const client = new Redis(REDIS_URL, { enableAutoPipelining: true, maxRetriesPerRequest: 1, lazyConnect: true })
  client.on("error", () => undefined)
  await client.connect()
  const prefix = `gatehouse-scale-${randomBytes(6).toString("hex")}:`
  const adapter = RedisAdapter(client, { prefix })
  return {
    name: "Redis",
    adapter,
    // Through the adapter (its key layout and scripts), many calls in flight at once: auto-pipelined by ioredis.
    seed: (from, to) => seedThroughAdapter(adapter, from, to),
    async cleanup() {
      let cursor = "0"
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 10_000)
        cursor = next
        if (keys.length) await client.unlink(...keys)
      } while (cursor !== "0")
      client.disconnect()
    },
  }
}

/** A Redis Cluster (REDIS_CLUSTER_URL names a seed node): the adapter's cluster layout, seeded through the adapter. */
async function redisClusterBackend(): Promise<Backend> {
  const { RedisAdapter } = await loadPackage()
  const seed = new URL(REDIS_CLUSTER_URL)
  const client = new Cluster([{ host: seed.hostname, port: Number(seed.port || 7001) }], {
    enableAutoPipelining: true,
    lazyConnect: true,
    redisOptions: { maxRetriesPerRequest: 1 },
  })
  client.on("error", () => undefined)
  await client.connect()
  const prefix = `gatehouse-scale-${randomBytes(6).toString("hex")}:`
  const adapter = RedisAdapter(client, { prefix })
  return {
    name: "Redis Cluster",
    adapter,
    seed: (from, to) => seedThroughAdapter(adapter, from, to),
    async cleanup() {
      await Promise.all(
        client.nodes("master").map(async (node) => {
          let cursor = "0"
          do {
            const [next, keys] = await node.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 10_000)
            cursor = next
            await Promise.all(keys.map((key) => node.unlink(key)))
          } while (cursor !== "0")
        }),
      )
      client.disconnect()
    },
  }
}

const factories: Record<string, () => Promise<Backend>> = {
  sqlite: sqliteBackend,
  postgres: () => postgresBackend("direct"),
  pgbouncer: () => postgresBackend("pgbouncer"),
  redis: redisBackend,
  "redis-cluster": redisClusterBackend,
}

function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc
  if (typeof exposed === "function") return exposed
  setFlagsFromString("--expose-gc")
  const gc = runInNewContext("gc") as unknown
  return typeof gc === "function" ? (gc as () => void) : () => undefined
}

async function listen(adapter: Adapter, cacheTtl: number): Promise<{ server: Server; url: string }> {
  const { requireAuth, Credentials } = await loadPackage()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "database", ...(cacheTtl > 0 ? { cache: { ttl: cacheTtl } } : {}) },
    providers: [Credentials({ authorize: () => null })],
  }
  const app = express()
  app.get("/", requireAuth(config), (_req, res) => {
    res.json(res.locals.session)
  })
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(0, "127.0.0.1", (error?: Error) => (error ? reject(error) : resolve(s)))
  })
  server.keepAliveTimeout = 60_000
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` }
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((x, y) => x - y)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

interface Row {
  size: number
  rps: number
  p99: number
  cachedRps?: number
  cachedP99?: number
  rss: number
  /** RSS growth over the measured runs at this size (after GC both times). */
  growth: number
  bad: number
}

async function measure(backend: Backend, size: number, settings: Settings, gc: () => void): Promise<Row> {
  const probe = Math.floor(size / 2)
  const headers = { cookie: `${COOKIE_NAME}=${token(probe)}`, accept: "application/json" }
  const plain = await listen(backend.adapter, 0)
  const cached = settings.cacheTtl > 0 ? await listen(backend.adapter, settings.cacheTtl) : undefined
  try {
    for (const target of [plain, cached]) {
      if (!target) continue
      const response = await fetch(target.url, { headers })
      const text = await response.text()
      if (response.status !== 200 || !text.includes(`scale-${probe}@example.com`)) {
        throw new Error(`${backend.name} at ${size}: ${response.status} ${text.slice(0, 200)}`)
      }
    }
    const load = (url: string, duration: number) =>
      runLoad("child", { url, headers, connections: settings.connections, pipelining: 1, duration })
    const runs: { plain: LoadResult[]; cached: LoadResult[] } = { plain: [], cached: [] }
    for (let i = 0; i < 3; i++) gc()
    const rssBefore = process.memoryUsage().rss
    await load(plain.url, 1)
    if (cached) await load(cached.url, 1)
    for (let round = 0; round < settings.rounds; round++) {
      const order: ["plain" | "cached", string][] = [["plain", plain.url]]
      if (cached) order.push(["cached", cached.url])
      if (round % 2 === 1) order.reverse()
      for (const [kind, url] of order) runs[kind].push(await load(url, settings.duration))
    }
    for (let i = 0; i < 3; i++) gc()
    const row: Row = {
      size,
      rps: median(runs.plain.map((r) => r.rps)),
      p99: median(runs.plain.map((r) => r.p99)),
      rss: process.memoryUsage().rss,
      growth: process.memoryUsage().rss - rssBefore,
      bad: [...runs.plain, ...runs.cached].reduce((sum, r) => sum + r.non2xx + r.errors, 0),
    }
    if (cached) {
      row.cachedRps = median(runs.cached.map((r) => r.rps))
      row.cachedP99 = median(runs.cached.map((r) => r.p99))
    }
    return row
  } finally {
    await close(plain.server)
    if (cached) await close(cached.server)
  }
}

interface Settings {
  sizes: number[]
  backends: string[]
  duration: number
  rounds: number
  connections: number
  cacheTtl: number
}

async function main(): Promise<void> {
  const settings: Settings = {
    sizes: envList("BENCH_SCALE_SIZES", "10000,100000,1000000")
      .map(Number)
      .sort((a, b) => a - b),
    backends: envList("BENCH_SCALE_BACKENDS", "sqlite,postgres,pgbouncer,redis,redis-cluster"),
    duration: envNumber("BENCH_DURATION", 5),
    rounds: Math.max(1, Math.round(envNumber("BENCH_ROUNDS", 3))),
    connections: Math.max(1, Math.round(envNumber("BENCH_CONNECTIONS", 10))),
    cacheTtl: envNumber("BENCH_SCALE_CACHE_TTL", 5),
  }
  if (settings.sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error("BENCH_SCALE_SIZES: positive integers")
  const unknown = settings.backends.filter((b) => !(b in factories))
  if (unknown.length) throw new Error(`BENCH_SCALE_BACKENDS: unknown ${unknown.join(", ")}`)
  const gc = collector()
  console.log("Gatehouse database sessions at scale")
  console.log(
    `sizes ${settings.sizes.join(", ")}; ${settings.rounds} rounds of ${settings.duration} s, ` +
      `${settings.connections} connections; session cache ${settings.cacheTtl > 0 ? `ttl ${settings.cacheTtl} s` : "not measured"}`,
  )
  const pad = (text: string, width: number) => text.padStart(width)
  for (const name of settings.backends) {
    let backend: Backend
    try {
      backend = await factories[name]!()
    } catch (error) {
      console.log(`!!! ${name} SKIPPED: ${(error as Error).message}`)
      continue
    }
    const rows: Row[] = []
    try {
      let seeded = 0
      for (const size of settings.sizes) {
        const started = performance.now()
        await backend.seed(seeded, size)
        const seconds = (performance.now() - started) / 1000
        process.stderr.write(`  ${backend.name}: seeded ${seeded} -> ${size} in ${seconds.toFixed(1)} s\n`)
        seeded = size
        rows.push(await measure(backend, size, settings, gc))
      }
    } finally {
      await backend.cleanup()
    }
    console.log()
    console.log(
      `${backend.name.padEnd(12)}${pad("sessions", 10)}${pad("req/s", 9)}${pad("p99 ms", 8)}` +
        `${pad("cached req/s", 14)}${pad("p99 ms", 8)}${pad("RSS", 10)}${pad("load", 9)}${pad("bad", 6)}`,
    )
    for (const row of rows) {
      console.log(
        `${"".padEnd(12)}${pad(String(row.size), 10)}${pad(Math.round(row.rps).toString(), 9)}${pad(row.p99.toFixed(1), 8)}` +
          `${pad(row.cachedRps === undefined ? "-" : Math.round(row.cachedRps).toString(), 14)}` +
          `${pad(row.cachedP99 === undefined ? "-" : row.cachedP99.toFixed(1), 8)}` +
          `${pad(`${(row.rss / 1024 / 1024).toFixed(1)} MB`, 10)}` +
          `${pad(`${row.growth >= 0 ? "+" : ""}${(row.growth / 1024 / 1024).toFixed(1)} MB`, 9)}${pad(String(row.bad), 6)}`,
      )
    }
    const first = rows[0]
    const last = rows[rows.length - 1]
    if (first && last && last !== first) {
      const ratio = last.rps / first.rps
      const rss = (last.rss - first.rss) / 1024 / 1024
      console.log(
        `${backend.name}: ${last.size} vs ${first.size} sessions  ${ratio.toFixed(3)}   target >= 0.85  ` +
          `${ratio >= 0.85 ? "PASS" : "MISS"};  RSS ${rss >= 0 ? "+" : ""}${rss.toFixed(1)} MB` +
          (name === "sqlite" ? " (SQLite runs inside this process: its page cache is in this RSS)" : ""),
      )
    }
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})

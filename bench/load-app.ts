/**
 * The app `npm run load` drives, run as a child process so its RSS is its own: a demo-like Express 5 app with
 * database sessions in SQLite (`LOAD_DB=sqlite`) or PostgreSQL (`LOAD_DB=postgres`), credentials and magic-link
 * sign-in (through a local SMTP server that discards mail), a public home page and a protected JSON route. Listens on
 * 127.0.0.1:0 and reports `{ port }` to the parent; answers `"rss"` with its RSS after a GC; exits on `"stop"`.
 *
 * Before it listens, the database is given `LOAD_SEED_TOKENS` (default 150,000) pending magic-link tokens, the rows a
 * production table holds after a while (the load's own magic-link requests add ~110,000 in ten minutes). With SQLite
 * this also fills the page cache (better-sqlite3's default `cache_size` is 16 MB, in this process): measured from an
 * empty file, the "warm" RSS would be read before that bounded cache had filled, and its filling would read as growth.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import path from "node:path"
import BetterSqlite3 from "better-sqlite3"
import express from "express"
import { Pool } from "pg"
import { SMTPServer } from "smtp-server"
import type { AuthConfig } from "../lib"
import type { Adapter } from "../lib/storage/adapter"
import { loadPackage } from "./package"

export const LOAD_PASSWORD = "load-password"

async function startSmtp(): Promise<{ port: number; stop: () => Promise<void> }> {
  const smtp = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      stream.resume()
      stream.on("end", () => callback())
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve))
  const { port } = (smtp as unknown as { server: Server }).server.address() as AddressInfo
  return { port, stop: () => new Promise<void>((resolve) => smtp.close(() => resolve())) }
}

const SEED_TOKENS = Number(process.env.LOAD_SEED_TOKENS ?? 150_000)

async function database(): Promise<{ adapter: Adapter; close: () => Promise<void> }> {
  const { PostgresAdapter, migrate, SQLiteAdapter } = await loadPackage()
  // Seeded rows expire in a day, like links nobody clicked; their identifiers never collide with the load's.
  const expires = Date.now() + 86_400_000
  if (process.env.LOAD_DB === "postgres") {
    const schema = `gatehouse_load_${randomBytes(6).toString("hex")}`
    const pool = new Pool({
      connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
      max: 10,
    })
    await migrate(pool, { schema })
    await pool.query(
      `INSERT INTO "${schema}".verification_tokens (identifier, token, expires)
         SELECT 'seed' || i || '@seed.test', md5(i::text || 'a') || md5(i::text || 'b'), to_timestamp($2 / 1000.0)
         FROM generate_series(1, $1) AS i`,
      [SEED_TOKENS, expires],
    )
    return {
      adapter: PostgresAdapter(pool, { schema }),
      close: async () => {
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
        await pool.end()
      },
    }
  }
  const dir = mkdtempSync(path.join(tmpdir(), "gatehouse-load-"))
  const sqlite = new BetterSqlite3(path.join(dir, "load.sqlite"))
  const adapter = SQLiteAdapter(sqlite)
  sqlite
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO verification_tokens (identifier, token, expires)
       SELECT 'seed' || i || '@seed.test', hex(randomblob(32)), ? FROM n`,
    )
    .run(SEED_TOKENS, expires)
  return {
    adapter,
    close: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

async function main(): Promise<void> {
  const { ExpressAuth, requireAuth, Credentials, Nodemailer } = await loadPackage()
  const smtp = await startSmtp()
  const db = await database()
  const config: AuthConfig = {
    secret: "gatehouse-load-secret-0123456789abcdefghijkl",
    trustHost: true,
    adapter: db.adapter,
    session: { strategy: "database" },
    // The load run measures the app, not the limiter: it sends magic links for ~1000 addresses in a loop (more than
    // 3 per address per 10 minutes, which `email-send-address` would refuse even with the limiter off), all from one
    // loopback IP (which the IP rules would refuse if NODE_ENV were production).
    rateLimit: { enabled: false, rules: { "email-send-address": false } },
    logger: {
      error: (e) => {
        const cause = (e.cause as { err?: Error } | undefined)?.err
        console.error(`load-app: ${e.name}: ${e.message}${cause ? ` (${cause.message})` : ""}`)
      },
      warn: () => undefined,
      debug: () => undefined,
    },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) =>
          c.password === LOAD_PASSWORD && typeof c.username === "string"
            ? { id: `load-${c.username}`, name: c.username, email: `${c.username}@load.test` }
            : null,
      }),
      Nodemailer({ server: { host: "127.0.0.1", port: smtp.port, ignoreTLS: true }, from: "load@example.test" }),
    ],
  }
  const app = express()
  app.get("/", (_req, res) => {
    res.type("html").send("<!doctype html><title>Home</title><p>Welcome</p>")
  })
  app.use("/auth", ExpressAuth(config))
  app.get("/me", requireAuth(config), (_req, res) => {
    res.json(res.locals.session)
  })
  const server = app.listen(0, "127.0.0.1", () => {
    process.send?.({ port: (server.address() as AddressInfo).port })
  })
  server.keepAliveTimeout = 60_000

  process.on("message", (message) => {
    if (message === "rss") {
      globalThis.gc?.()
      const { rss, heapUsed, external } = process.memoryUsage()
      process.send?.({ rss, heapUsed, external })
    } else if (message === "stop") {
      // autocannon cuts its sockets at the end of a run, and the handlers of cut requests keep running (a sign-in
      // email, a database write) after their response closed: stop taking requests, then give those handlers time
      // to end before SMTP and the database go away (else they log errors after the measurement).
      server.close()
      server.closeAllConnections()
      setTimeout(() => void Promise.all([smtp.stop(), db.close()]).finally(() => process.exit(0)), 2000)
    }
  })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})

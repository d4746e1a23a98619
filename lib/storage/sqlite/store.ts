// The SQLite key-value store: table `gatehouse_kv` with an expiry; each operation one statement or one transaction.
import { asSQLiteDatabase } from "./driver"
import type { SQLiteDatabase } from "./schema"
import type { KeyValueStore, RateLimitStore } from "../kv"
import { checkKey, checkMaxValue, checkValue, storedInteger, ttlMs, windowHit } from "../kv"

/** The table (also created by the SQLite adapter). Expiry times are epoch milliseconds. */
export const SQLITE_KV_SCHEMA = `
CREATE TABLE IF NOT EXISTS gatehouse_kv (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS gatehouse_kv_expires_at ON gatehouse_kv (expires_at);
`

const SWEEP_EVERY_MS = 60_000

/**
 * Creates a store on a SQLite database: better-sqlite3's, `node:sqlite`'s or `bun:sqlite`'s (the table is created if
 * missing). Statements run synchronously and
 * `setMax` runs in `BEGIN IMMEDIATE`, so each operation is atomic, also against other processes on the same file.
 *
 * @example
 * ```ts
 * import Database from "better-sqlite3"
 * import { SQLiteStore } from "gatehouse-auth/store/sqlite"
 * const store = SQLiteStore(new Database(".data/auth.sqlite"))
 * ```
 */
export function SQLiteStore(database: SQLiteDatabase): KeyValueStore & RateLimitStore {
  const db = asSQLiteDatabase(database)
  db.exec(SQLITE_KV_SCHEMA)
  const q = {
    get: db.prepare("SELECT value FROM gatehouse_kv WHERE key = ? AND expires_at > ?"),
    getAny: db.prepare("SELECT value, expires_at FROM gatehouse_kv WHERE key = ?"),
    set: db.prepare(
      `INSERT INTO gatehouse_kv (key, value, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
    ),
    consume: db.prepare(
      `INSERT INTO gatehouse_kv (key, value, expires_at) VALUES (?, '1', ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
           WHERE gatehouse_kv.expires_at <= ?
         RETURNING key`,
    ),
    hit: db.prepare(
      `INSERT INTO gatehouse_kv (key, value, expires_at) VALUES (?, '1', ?)
         ON CONFLICT (key) DO UPDATE SET
           value = CASE WHEN gatehouse_kv.expires_at <= ? OR gatehouse_kv.value GLOB '*[^0-9]*'
             OR gatehouse_kv.value = '' THEN '1' ELSE CAST(CAST(gatehouse_kv.value AS INTEGER) + 1 AS TEXT) END,
           expires_at = CASE WHEN gatehouse_kv.expires_at <= ? OR gatehouse_kv.value GLOB '*[^0-9]*'
             OR gatehouse_kv.value = '' THEN excluded.expires_at ELSE gatehouse_kv.expires_at END
         RETURNING value, expires_at`,
    ),
    reset: db.prepare("DELETE FROM gatehouse_kv WHERE key = ?"),
    sweep: db.prepare("DELETE FROM gatehouse_kv WHERE expires_at <= ?"),
  }
  let nextSweep = 0
  const sweep = (now: number): void => {
    if (now < nextSweep) return
    nextSweep = now + SWEEP_EVERY_MS
    q.sweep.run(now)
  }

  return {
    async get(keys) {
      const now = Date.now()
      return keys.map((key) => {
        const row = q.get.get(checkKey(key), now) as { value: string } | undefined
        return row ? row.value : null
      })
    },
    async set(key, value, ttlSeconds) {
      const now = Date.now()
      q.set.run(checkKey(key), checkValue(value), now + ttlMs(ttlSeconds))
      sweep(now)
    },
    async setMax(key, value, ttlSeconds) {
      checkKey(key)
      checkMaxValue(value)
      const now = Date.now()
      const expiresAt = now + ttlMs(ttlSeconds)
      db.exec("BEGIN IMMEDIATE")
      let result: number
      try {
        const row = q.getAny.get(key) as { value: string; expires_at: number } | undefined
        const live = row !== undefined && Number(row.expires_at) > now
        const current = live ? storedInteger(row.value) : null
        result = current !== null && current >= value ? current : value
        q.set.run(key, String(result), live ? Math.max(Number(row.expires_at), expiresAt) : expiresAt)
        db.exec("COMMIT")
      } catch (error) {
        db.exec("ROLLBACK")
        throw error
      }
      sweep(now)
      return result
    },
    async consume(key, ttlSeconds) {
      const now = Date.now()
      const row = q.consume.get(checkKey(key), now + ttlMs(ttlSeconds), now)
      sweep(now)
      return row !== undefined
    },
    async hit(key, windowSeconds) {
      const now = Date.now()
      const row = q.hit.get(checkKey(key), now + ttlMs(windowSeconds), now, now) as {
        value: string
        expires_at: number
      }
      sweep(now)
      return windowHit(Number(row.value), Number(row.expires_at), now)
    },
    async reset(key) {
      q.reset.run(checkKey(key))
    },
  }
}

export default SQLiteStore

// The PostgreSQL key-value store: table `gatehouse_kv` with an expiry, each operation one atomic statement.
import { migrationHinted } from "./query"
import type { Queryable } from "./query"
import { quoteSchema } from "./schema"
import type { KeyValueStore, RateLimitStore } from "../kv"
import { checkKey, checkMaxValue, checkValue, ttlMs, windowHit } from "../kv"

/** Options of {@link PostgresStore}. */
export interface PostgresStoreOptions {
  /** The PostgreSQL schema holding `gatehouse_kv` (created by the adapter's `migrate`). Default `public`. */
  schema?: string
}

/** The table, for apps that manage their schema themselves (also part of the adapter's `migrate`). */
export const POSTGRES_KV_SCHEMA = `CREATE TABLE IF NOT EXISTS gatehouse_kv (
  key        text PRIMARY KEY,
  value      text NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS gatehouse_kv_expires_at ON gatehouse_kv (expires_at);
`

/** Expired rows are read as absent at once and deleted at most once a minute, by the next write. */
const SWEEP_EVERY_MS = 60_000

/**
 * Creates a store on a `pg` pool. Expiry times are epoch milliseconds from this process's clock. `consume` is one
 * `INSERT … ON CONFLICT DO UPDATE … WHERE expired RETURNING`, and `setMax` one upsert that keeps the larger number:
 * the row lock makes concurrent callers, in any process, see each other's writes.
 *
 * @example
 * ```ts
 * import { Pool } from "pg"
 * import { migrate } from "gatehouse-auth/adapters/postgres"
 * import { PostgresStore } from "gatehouse-auth/store/postgres"
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL })
 * await migrate(pool)
 * const store = PostgresStore(pool)
 * ```
 */
export function PostgresStore(pool: Queryable, options: PostgresStoreOptions = {}): KeyValueStore & RateLimitStore {
  const t = `${quoteSchema(options.schema ?? "public")}.gatehouse_kv`
  const db = migrationHinted(pool, options.schema ?? "public")
  let nextSweep = 0
  const sweep = async (now: number): Promise<void> => {
    if (now < nextSweep) return
    nextSweep = now + SWEEP_EVERY_MS
    await db.query(`DELETE FROM ${t} WHERE expires_at <= $1`, [now])
  }

  return {
    async get(keys) {
      if (keys.length === 0) return []
      keys.forEach(checkKey)
      const result = await db.query(`SELECT key, value FROM ${t} WHERE key = ANY($1::text[]) AND expires_at > $2`, [
        keys,
        Date.now(),
      ])
      const found = new Map<string, string>(
        result.rows.map((row: { key: string; value: string }) => [row.key, row.value]),
      )
      return keys.map((key) => found.get(key) ?? null)
    },
    async set(key, value, ttlSeconds) {
      const now = Date.now()
      await db.query(
        `INSERT INTO ${t} (key, value, expires_at) VALUES ($1, $2, $3)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
        [checkKey(key), checkValue(value), now + ttlMs(ttlSeconds)],
      )
      await sweep(now)
    },
    async setMax(key, value, ttlSeconds) {
      const now = Date.now()
      const result = await db.query(
        `INSERT INTO ${t} AS kv (key, value, expires_at) VALUES ($1, $2, $3)
           ON CONFLICT (key) DO UPDATE SET
             value = CASE
               WHEN kv.expires_at <= $4 OR kv.value !~ '^-?[0-9]{1,16}$' THEN excluded.value
               WHEN kv.value::bigint < excluded.value::bigint THEN excluded.value
               ELSE kv.value END,
             expires_at = CASE WHEN kv.expires_at <= $4 THEN excluded.expires_at
               ELSE greatest(kv.expires_at, excluded.expires_at) END
           RETURNING value`,
        [checkKey(key), String(checkMaxValue(value)), now + ttlMs(ttlSeconds), now],
      )
      await sweep(now)
      return Number((result.rows[0] as { value: string }).value)
    },
    async consume(key, ttlSeconds) {
      const now = Date.now()
      const result = await db.query(
        `INSERT INTO ${t} AS kv (key, value, expires_at) VALUES ($1, '1', $2)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
             WHERE kv.expires_at <= $3
           RETURNING key`,
        [checkKey(key), now + ttlMs(ttlSeconds), now],
      )
      await sweep(now)
      return (result.rowCount ?? 0) === 1
    },
    async hit(key, windowSeconds) {
      const now = Date.now()
      // One statement: the row lock orders concurrent hits, so each sees its own count. An expired or non-counter row
      // opens a new window.
      const result = await db.query(
        `INSERT INTO ${t} AS kv (key, value, expires_at) VALUES ($1, '1', $2)
           ON CONFLICT (key) DO UPDATE SET
             value = CASE WHEN kv.expires_at <= $3 OR kv.value !~ '^[0-9]{1,15}$' THEN '1'
               ELSE (kv.value::bigint + 1)::text END,
             expires_at = CASE WHEN kv.expires_at <= $3 OR kv.value !~ '^[0-9]{1,15}$' THEN excluded.expires_at
               ELSE kv.expires_at END
           RETURNING value, expires_at`,
        [checkKey(key), now + ttlMs(windowSeconds), now],
      )
      await sweep(now)
      const row = result.rows[0] as { value: string; expires_at: string }
      return windowHit(Number(row.value), Number(row.expires_at), now)
    },
    async reset(key) {
      await db.query(`DELETE FROM ${t} WHERE key = $1`, [checkKey(key)])
    },
  }
}

export default PostgresStore

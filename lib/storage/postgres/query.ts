// What the PostgreSQL adapter's method groups share: the connection they query and the mapping of constraint errors.
import type { QueryResult } from "pg"
import { missingUser } from "../internal/models"

/** A pool, or one client inside a transaction: the one call a method group makes. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<QueryResult>
}

/** The SQLSTATEs of a schema that `migrate` has not run in (or not since an upgrade): no table, schema or column. */
const NOT_MIGRATED = new Set(["42P01", "3F000", "42703"])

/**
 * The error of a query that found Gatehouse's tables missing or older than this version, as one sentence naming the
 * fix and the schema; the SQLSTATE stays in `code`, the driver's error in `cause`. Any other error passes unchanged.
 */
export function notMigrated(error: unknown, schema: string): unknown {
  const code = pgCode(error)
  if (code === undefined || !NOT_MIGRATED.has(code)) return error
  const call = schema === "public" ? "migrate(pool)" : `migrate(pool, { schema: "${schema}" })`
  const hint = new Error(
    `Gatehouse's tables are missing or out of date in PostgreSQL schema "${schema}": run ${call} once at start-up`,
    { cause: error },
  )
  // The sentence says all there is to say: no stack of library frames under it in the log.
  hint.stack = `Error: ${hint.message}`
  return Object.assign(hint, { code })
}

/** `db` whose failed queries go through {@link notMigrated}. */
export function migrationHinted(db: Queryable, schema: string): Queryable {
  return {
    async query(text, values) {
      try {
        return await db.query(text, values)
      } catch (error) {
        throw notMigrated(error, schema)
      }
    },
  }
}

/** Runs `sql` and answers its first row, or `null` when there is none. */
export async function queryOne<R>(db: Queryable, sql: string, values: unknown[]): Promise<R | null> {
  const result = await db.query(sql, values)
  return (result.rows[0] as R | undefined) ?? null
}

function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "string" ? code : undefined
}

/** Turns PostgreSQL constraint violations into the adapters' fixed errors; anything else is rethrown as is. */
export function translate(error: unknown, userId: unknown, unique: () => Error): never {
  if (pgCode(error) === "23503") throw missingUser(String(userId))
  if (pgCode(error) === "23505") throw unique()
  throw error
}

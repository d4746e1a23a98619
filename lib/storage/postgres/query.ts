// What the PostgreSQL adapter's method groups share: the connection they query and the mapping of constraint errors.
import type { Pool, PoolClient } from "pg"
import { missingUser } from "../internal/models"

/** A pool, or one client inside a transaction: all a method group needs. */
export type Queryable = Pick<Pool | PoolClient, "query">

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

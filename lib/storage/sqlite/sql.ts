// What the SQLite adapter's method groups share: dates as epoch milliseconds, transactions, constraint errors.
import { missingUser } from "../internal/models"
import type { SQLiteDatabase } from "./schema"

/** A date as the epoch milliseconds SQLite stores, `null` for none. */
export const ms = (value: Date | null | undefined): number | null => (value ? new Date(value).getTime() : null)

/** Runs `fn` inside `BEGIN IMMEDIATE … COMMIT`; the driver is synchronous, so nothing interleaves. */
export function transaction<T>(db: SQLiteDatabase, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE")
  try {
    const result = fn()
    db.exec("COMMIT")
    return result
  } catch (error) {
    db.exec("ROLLBACK")
    throw error
  }
}

function isConstraint(error: unknown, kind: "UNIQUE" | "PRIMARYKEY" | "FOREIGNKEY"): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "string" && code === `SQLITE_CONSTRAINT_${kind}`
}

/** Turns SQLite constraint violations into the adapters' fixed errors; anything else is rethrown as is. */
export function rethrow(error: unknown, cause: Record<string, unknown>, unique: () => Error): never {
  if (isConstraint(error, "FOREIGNKEY")) throw missingUser(String(cause.userId))
  if (isConstraint(error, "UNIQUE") || isConstraint(error, "PRIMARYKEY")) throw unique()
  throw error
}

// The SQLite adapter's directory reads: users in the listing order (on the `(email_key, id)` index), a user's accounts.
import type { UserDirectoryAdapter } from "../adapter"
import { escapeLike } from "../internal/models"
import { accountFromRow, userFromRow } from "../internal/rows"
import type { AccountRow, UserRow } from "../internal/rows"
import type { SQLiteDatabase } from "./schema"

/** The directory methods on `db`. */
export function directoryMethods(db: SQLiteDatabase): UserDirectoryAdapter {
  const accountsOf = db.prepare("SELECT * FROM accounts WHERE user_id = ? ORDER BY provider, provider_account_id")
  return {
    async listUsers(filter) {
      const where: string[] = []
      const values: unknown[] = []
      const match: string[] = []
      if (filter.emailPrefix !== undefined) {
        match.push("email_key LIKE ? ESCAPE '\\'")
        values.push(`${escapeLike(filter.emailPrefix)}%`)
      }
      if (filter.id !== undefined) {
        match.push("id = ?")
        values.push(filter.id)
      }
      if (match.length > 0) where.push(`(${match.join(" OR ")})`)
      const after = filter.after
      if (after && after.emailKey !== null) {
        where.push("(email_key IS NULL OR email_key > ? OR (email_key = ? AND id > ?))")
        values.push(after.emailKey, after.emailKey, after.id)
      } else if (after) {
        where.push("(email_key IS NULL AND id > ?)")
        values.push(after.id)
      }
      const sql =
        `SELECT * FROM users ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ` +
        "ORDER BY email_key IS NULL, email_key, id LIMIT ?"
      return db
        .prepare(sql)
        .all(...values, filter.limit)
        .map((row) => userFromRow(row as UserRow))
    },
    async listAccountsByUserId(userId) {
      return accountsOf.all(userId).map((row) => accountFromRow(row as AccountRow))
    },
  }
}

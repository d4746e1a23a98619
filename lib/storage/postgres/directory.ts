// The PostgreSQL adapter's directory reads: users in the listing order (on `(lower(email), id)`), a user's accounts.
import type { UserDirectoryAdapter } from "../adapter"
import { escapeLike } from "../internal/models"
import { accountFromRow, userFromRow } from "../internal/rows"
import type { AccountRow, UserRow } from "../internal/rows"
import type { Queryable } from "./query"

/** The directory methods on `db`, with the tables in the quoted schema `s`. */
export function directoryMethods(db: Queryable, s: string): UserDirectoryAdapter {
  return {
    async listUsers(filter) {
      const values: unknown[] = []
      const param = (value: unknown): string => {
        values.push(value)
        return `$${values.length}`
      }
      const where: string[] = []
      const match: string[] = []
      if (filter.emailPrefix !== undefined) {
        match.push(`lower(email) COLLATE "C" LIKE ${param(`${escapeLike(filter.emailPrefix)}%`)} ESCAPE '\\'`)
      }
      if (filter.id !== undefined) match.push(`id = ${param(filter.id)}`)
      if (match.length > 0) where.push(`(${match.join(" OR ")})`)
      const after = filter.after
      if (after && after.emailKey !== null) {
        const key = param(after.emailKey)
        const email = `lower(email) COLLATE "C"`
        where.push(
          `(email IS NULL OR ${email} > ${key} OR (${email} = ${key} AND id COLLATE "C" > ${param(after.id)}))`,
        )
      } else if (after) {
        where.push(`(email IS NULL AND id COLLATE "C" > ${param(after.id)})`)
      }
      const result = await db.query(
        `SELECT * FROM ${s}.users ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
           ORDER BY email IS NULL, lower(email) COLLATE "C", id COLLATE "C" LIMIT ${param(filter.limit)}`,
        values,
      )
      return result.rows.map((row) => userFromRow(row as UserRow))
    },
    async listAccountsByUserId(userId) {
      const result = await db.query(
        `SELECT * FROM ${s}.accounts WHERE user_id = $1 ORDER BY provider COLLATE "C", provider_account_id COLLATE "C"`,
        [userId],
      )
      return result.rows.map((row) => accountFromRow(row as AccountRow))
    },
  }
}

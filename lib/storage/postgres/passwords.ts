// The PostgreSQL adapter's password rows: the `accounts` row of provider `password`, one statement per write.
import type { AdapterPasswordAccount, PasswordAdapter } from "../adapter"
import { passwordAccount } from "../internal/password"
import { queryOne, translate } from "./query"
import type { Queryable } from "./query"

interface PasswordRow {
  user_id: string
  password_hash: string | null
  password_changed_at: unknown
}

const fromRow = (row: PasswordRow | null): AdapterPasswordAccount | null =>
  row && typeof row.password_hash === "string"
    ? passwordAccount(row.user_id, row.password_hash, row.password_changed_at)
    : null

/** `getPasswordAccount` and `setPasswordHash`, with the tables in the quoted schema `s`. */
export function passwordMethods(db: Queryable, s: string): PasswordAdapter {
  const one = (sql: string, values: unknown[]) => queryOne<PasswordRow>(db, sql, values)
  const insert = `INSERT INTO ${s}.accounts AS a (user_id, type, provider, provider_account_id, password_hash,
      password_changed_at) VALUES ($1, 'password', 'password', $1, $2, $3)
    ON CONFLICT (provider, provider_account_id)`
  return {
    async getPasswordAccount(userId) {
      return fromRow(
        await one(`SELECT * FROM ${s}.accounts WHERE provider = 'password' AND provider_account_id = $1`, [userId]),
      )
    },
    async setPasswordHash(userId, passwordHash, options = {}) {
      const changedAt = options.changedAt ?? null
      const { expected } = options
      try {
        if (typeof expected === "string") {
          return fromRow(
            await one(
              `UPDATE ${s}.accounts SET password_hash = $1,
                  password_changed_at = COALESCE($2::timestamptz, password_changed_at)
                WHERE provider = 'password' AND provider_account_id = $3 AND password_hash = $4 RETURNING *`,
              [passwordHash, changedAt, userId, expected],
            ),
          )
        }
        if (expected === null)
          return fromRow(await one(`${insert} DO NOTHING RETURNING *`, [userId, passwordHash, changedAt]))
        return fromRow(
          await one(
            `${insert} DO UPDATE SET password_hash = EXCLUDED.password_hash,
               password_changed_at = COALESCE(EXCLUDED.password_changed_at, a.password_changed_at) RETURNING *`,
            [userId, passwordHash, changedAt],
          ),
        )
      } catch (error) {
        return translate(error, userId, () => error as Error)
      }
    },
  }
}

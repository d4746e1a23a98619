// The SQLite adapter's password rows: the `accounts` row of provider `password`, one statement per write.
import type { AdapterPasswordAccount, PasswordAdapter } from "../adapter"
import { passwordAccount } from "../internal/password"
import type { SQLiteDatabase } from "./schema"
import { ms, rethrow } from "./sql"

interface PasswordRow {
  user_id: string
  password_hash: string | null
  password_changed_at: unknown
}

const fromRow = (row: unknown): AdapterPasswordAccount | null => {
  const r = row as PasswordRow | undefined
  return r && typeof r.password_hash === "string"
    ? passwordAccount(r.user_id, r.password_hash, r.password_changed_at)
    : null
}

/** `getPasswordAccount` and `setPasswordHash` on `db` (statements prepared once, here). */
export function passwordMethods(db: SQLiteDatabase): PasswordAdapter {
  const q = {
    get: db.prepare("SELECT * FROM accounts WHERE provider = 'password' AND provider_account_id = ?"),
    // `expected` absent: insert or overwrite; the column keeps its value when no time is given.
    upsert: db.prepare(
      `INSERT INTO accounts (user_id, type, provider, provider_account_id, password_hash, password_changed_at)
         VALUES (?, 'password', 'password', ?, ?, ?)
       ON CONFLICT (provider, provider_account_id) DO UPDATE SET password_hash = excluded.password_hash,
         password_changed_at = COALESCE(excluded.password_changed_at, accounts.password_changed_at)
       RETURNING *`,
    ),
    // `expected: null`: insert only when the user has no password row.
    insert: db.prepare(
      `INSERT INTO accounts (user_id, type, provider, provider_account_id, password_hash, password_changed_at)
         VALUES (?, 'password', 'password', ?, ?, ?)
       ON CONFLICT (provider, provider_account_id) DO NOTHING RETURNING *`,
    ),
    // `expected: "<hash>"`: compare-and-swap.
    swap: db.prepare(
      `UPDATE accounts SET password_hash = ?, password_changed_at = COALESCE(?, password_changed_at)
        WHERE provider = 'password' AND provider_account_id = ? AND password_hash = ? RETURNING *`,
    ),
  }
  return {
    async getPasswordAccount(userId) {
      return fromRow(q.get.get(userId))
    },
    async setPasswordHash(userId, passwordHash, options = {}) {
      const changedAt = ms(options.changedAt)
      const { expected } = options
      try {
        if (typeof expected === "string") return fromRow(q.swap.get(passwordHash, changedAt, userId, expected))
        const statement = expected === null ? q.insert : q.upsert
        return fromRow(statement.get(userId, userId, passwordHash, changedAt))
      } catch (error) {
        return rethrow(error, { userId }, () => error as Error)
      }
    },
  }
}

// The SQLite adapter's users and accounts, with the accounts' token compare-and-swap.
import type { AccountTokenAdapter, AdapterUser, UserAdapter } from "../adapter"
import { conflict, emailKey, newUserId, notFound, parseExtra, userTokenIdentifiers } from "../internal/models"
import {
  accountFromRow,
  accountValues,
  ACCOUNT_INSERT_COLUMNS,
  tokenPatchSql,
  userFromRow,
  userPatch,
  userValues,
} from "../internal/rows"
import type { AccountRow, UserRow } from "../internal/rows"
import type { SQLiteDatabase } from "./schema"
import { ms, rethrow, transaction } from "./sql"

/** The users-and-accounts methods on `db` (its statements prepared once, here). */
export function userMethods(db: SQLiteDatabase): UserAdapter & AccountTokenAdapter {
  const q = {
    insertUser: db.prepare(
      `INSERT INTO users (id, name, email, email_key, email_verified, image, extra, role, banned, ban_reason, ban_expires)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    userById: db.prepare("SELECT * FROM users WHERE id = ?"),
    userByEmail: db.prepare("SELECT * FROM users WHERE email_key = ?"),
    userByAccount: db.prepare(
      "SELECT u.* FROM users u JOIN accounts a ON a.user_id = u.id WHERE a.provider = ? AND a.provider_account_id = ?",
    ),
    deleteUser: db.prepare("DELETE FROM users WHERE id = ? RETURNING *"),
    deleteAccountsOf: db.prepare("DELETE FROM accounts WHERE user_id = ?"),
    deleteSessionsOf: db.prepare("DELETE FROM sessions WHERE user_id = ?"),
    deleteAuthenticatorsOf: db.prepare("DELETE FROM authenticators WHERE user_id = ?"),
    deleteTwoFactorOf: db.prepare("DELETE FROM two_factor WHERE user_id = ?"),
    deleteTokensOf: db.prepare("DELETE FROM verification_tokens WHERE lower(identifier) IN (?, ?, ?)"),
    // SQLite's lower() folds ASCII only: identifiers with other characters are compared in JavaScript.
    nonAsciiTokens: db.prepare(
      "SELECT identifier, token FROM verification_tokens WHERE length(identifier) <> length(CAST(identifier AS BLOB))",
    ),
    deleteToken: db.prepare("DELETE FROM verification_tokens WHERE identifier = ? AND token = ?"),
    insertAccount: db.prepare(
      `INSERT INTO accounts (${ACCOUNT_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    deleteAccount: db.prepare("DELETE FROM accounts WHERE provider = ? AND provider_account_id = ? RETURNING *"),
    account: db.prepare("SELECT * FROM accounts WHERE provider = ? AND provider_account_id = ?"),
  }
  const userOrNull = (row: unknown): AdapterUser | null => (row ? userFromRow(row as UserRow) : null)

  return {
    async createUser(user) {
      const id = newUserId(user)
      const { fields: f, extraJson } = userValues(user, id)
      try {
        const row = q.insertUser.get(
          id,
          f.name,
          f.email,
          f.email_key,
          ms(user.emailVerified),
          f.image,
          extraJson,
          f.role,
          f.banned ? 1 : 0,
          f.ban_reason,
          ms(f.ban_expires as Date | null),
        )
        return userFromRow(row as UserRow)
      } catch (error) {
        return rethrow(error, {}, () =>
          q.userById.get(id) ? conflict("User id", { id }) : conflict("Email", { email: user.email }),
        )
      }
    },
    async getUser(id) {
      return userOrNull(q.userById.get(id))
    },
    async getUserByEmail(email) {
      const key = emailKey(email)
      return key === null ? null : userOrNull(q.userByEmail.get(key))
    },
    async getUserByAccount({ provider, providerAccountId }) {
      return userOrNull(q.userByAccount.get(provider, providerAccountId))
    },
    async updateUser(patch) {
      return transaction(db, () => {
        const row = q.userById.get(patch.id) as UserRow | undefined
        if (!row) throw notFound("User", patch.id)
        const { columns, extra, movedOutOfExtra } = userPatch(patch)
        const sets = columns.map(([column]) => `${column} = ?`)
        const values = columns.map(([column, value]) =>
          column === "email_verified" || column === "ban_expires"
            ? ms(value as Date | null)
            : column === "banned"
              ? value
                ? 1
                : 0
              : value,
        )
        const email = columns.find(([column]) => column === "email")
        if (email) {
          sets.push("email_key = ?")
          values.push(emailKey(email[1]))
        }
        sets.push("extra = ?")
        const kept = parseExtra(row.extra)
        for (const field of movedOutOfExtra) delete kept[field]
        values.push(JSON.stringify({ ...kept, ...extra }))
        try {
          const updated = db
            .prepare(`UPDATE users SET ${sets.join(", ")} WHERE id = ? RETURNING *`)
            .get(...values, patch.id)
          return userFromRow(updated as UserRow)
        } catch (error) {
          return rethrow(error, {}, () => conflict("Email", { email: email?.[1] }))
        }
      })
    },
    async deleteUser(userId) {
      return transaction(db, () => {
        q.deleteAccountsOf.run(userId)
        q.deleteSessionsOf.run(userId)
        q.deleteAuthenticatorsOf.run(userId)
        q.deleteTwoFactorOf.run(userId)
        const deleted = userOrNull(q.deleteUser.get(userId))
        const key = emailKey(deleted?.email)
        // Its sign-in links and Gatehouse password links (identifiers stored as given, compared case-insensitively).
        if (key !== null) {
          const identifiers = userTokenIdentifiers(key)
          q.deleteTokensOf.run(...identifiers)
          for (const row of q.nonAsciiTokens.all() as Array<{ identifier: string; token: string }>) {
            if (identifiers.includes(row.identifier.toLowerCase())) q.deleteToken.run(row.identifier, row.token)
          }
        }
        return deleted
      })
    },
    async linkAccount(account) {
      const { params } = accountValues(account)
      try {
        const row = q.insertAccount.get(...params)
        return accountFromRow(row as AccountRow)
      } catch (error) {
        return rethrow(error, { userId: account.userId }, () => conflict("Account", { provider: account.provider }))
      }
    },
    async unlinkAccount({ provider, providerAccountId }) {
      const row = q.deleteAccount.get(provider, providerAccountId)
      return row ? accountFromRow(row as AccountRow) : null
    },
    async getAccount(providerAccountId, provider) {
      const row = q.account.get(provider, providerAccountId)
      return row ? accountFromRow(row as AccountRow) : null
    },
    async updateAccountTokens(key, patch, options = {}) {
      const { set, values } = tokenPatchSql(patch, () => "?")
      if (!set) {
        const row = q.account.get(key.provider, key.providerAccountId)
        return row ? accountFromRow(row as AccountRow) : null
      }
      const expected = options.expectedRefreshToken
      const cas = expected === undefined ? "" : " AND refresh_token IS ?"
      const row = db
        .prepare(`UPDATE accounts SET ${set} WHERE provider = ? AND provider_account_id = ?${cas} RETURNING *`)
        .get(...values, key.provider, key.providerAccountId, ...(expected === undefined ? [] : [expected]))
      return row ? accountFromRow(row as AccountRow) : null
    },
  }
}

// The PostgreSQL adapter's users and accounts, with the accounts' token compare-and-swap.
import type { AccountKey, AccountTokenAdapter, AccountTokenPatch, UserAdapter } from "../adapter"
import { conflict, emailKey, newUserId, notFound } from "../internal/models"
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
import { queryOne, translate } from "./query"
import type { Queryable } from "./query"

/** The users-and-accounts methods on `db`, with the tables in the quoted schema `s`. */
export function userMethods(db: Queryable, s: string): UserAdapter & AccountTokenAdapter {
  const one = <R>(sql: string, values: unknown[]) => queryOne<R>(db, sql, values)
  return {
    async createUser(user) {
      const id = newUserId(user)
      const { fields: f, extraJson } = userValues(user, id)
      try {
        const row = await one<UserRow>(
          `INSERT INTO ${s}.users (id, name, email, email_verified, image, extra, role, banned, ban_reason, ban_expires)
             VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10) RETURNING *`,
          [id, f.name, f.email, f.email_verified, f.image, extraJson, f.role, f.banned, f.ban_reason, f.ban_expires],
        )
        return userFromRow(row as UserRow)
      } catch (error) {
        const detail = (error as { constraint?: unknown } | null)?.constraint
        return translate(error, id, () =>
          detail === "users_email_lower" ? conflict("Email", { email: user.email }) : conflict("User id", { id }),
        )
      }
    },
    async getUser(id) {
      const row = await one<UserRow>(`SELECT * FROM ${s}.users WHERE id = $1`, [id])
      return row ? userFromRow(row) : null
    },
    async getUserByEmail(email) {
      if (emailKey(email) === null) return null
      const row = await one<UserRow>(`SELECT * FROM ${s}.users WHERE lower(email) = lower($1)`, [email])
      return row ? userFromRow(row) : null
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const row = await one<UserRow>(
        `SELECT u.* FROM ${s}.users u JOIN ${s}.accounts a ON a.user_id = u.id
           WHERE a.provider = $1 AND a.provider_account_id = $2`,
        [provider, providerAccountId],
      )
      return row ? userFromRow(row) : null
    },
    async updateUser(patch) {
      const { columns, extra, movedOutOfExtra } = userPatch(patch)
      const values: unknown[] = [patch.id, JSON.stringify(extra), movedOutOfExtra]
      // A field now written to its column leaves the bag, where a row from before the columns may still hold it.
      const sets = ["extra = (extra - $3::text[]) || $2::jsonb"]
      for (const [column, value] of columns) {
        values.push(value)
        sets.push(`${column} = $${values.length}`)
      }
      try {
        const row = await one<UserRow>(`UPDATE ${s}.users SET ${sets.join(", ")} WHERE id = $1 RETURNING *`, values)
        if (!row) throw notFound("User", patch.id)
        return userFromRow(row)
      } catch (error) {
        return translate(error, patch.id, () => conflict("Email", { email: patch.email }))
      }
    },
    async deleteUser(userId) {
      // Accounts, sessions and authenticators go with the user (ON DELETE CASCADE); the two-factor row (no foreign
      // key) and the verification tokens of its address (sign-in links, Gatehouse password links) by the CTEs, all in
      // this one statement.
      const row = await one<UserRow>(
        `WITH tf AS (DELETE FROM ${s}.two_factor WHERE user_id = $1),
              u AS (DELETE FROM ${s}.users WHERE id = $1 RETURNING *),
              t AS (DELETE FROM ${s}.verification_tokens WHERE lower(identifier) IN (
                SELECT k FROM u, LATERAL (VALUES (lower(u.email)), ('gatehouse:verify-email:' || lower(u.email)),
                  ('gatehouse:password-reset:' || lower(u.email))) AS v(k) WHERE u.email IS NOT NULL))
         SELECT * FROM u`,
        [userId],
      )
      return row ? userFromRow(row) : null
    },
    async linkAccount(account) {
      const { params } = accountValues(account)
      try {
        const row = await one<AccountRow>(
          `INSERT INTO ${s}.accounts (${ACCOUNT_INSERT_COLUMNS})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb) RETURNING *`,
          params,
        )
        return accountFromRow(row as AccountRow)
      } catch (error) {
        return translate(error, account.userId, () => conflict("Account", { provider: account.provider }))
      }
    },
    async unlinkAccount({ provider, providerAccountId }) {
      const row = await one<AccountRow>(
        `DELETE FROM ${s}.accounts WHERE provider = $1 AND provider_account_id = $2 RETURNING *`,
        [provider, providerAccountId],
      )
      return row ? accountFromRow(row) : null
    },
    async getAccount(providerAccountId, provider) {
      const row = await one<AccountRow>(
        `SELECT * FROM ${s}.accounts WHERE provider = $1 AND provider_account_id = $2`,
        [provider, providerAccountId],
      )
      return row ? accountFromRow(row) : null
    },
    // Refresh-token rotation: one conditional UPDATE, so of two writers holding the same old token one wins.
    async updateAccountTokens(
      key: AccountKey,
      patch: AccountTokenPatch,
      options: { expectedRefreshToken?: string | null } = {},
    ) {
      const { set, values } = tokenPatchSql(patch, (i) => `$${i}`, 2)
      const expected = options.expectedRefreshToken
      const cas = expected === undefined ? "" : ` AND refresh_token IS NOT DISTINCT FROM $${values.length + 3}`
      const row = await one<AccountRow>(
        set
          ? `UPDATE ${s}.accounts SET ${set} WHERE provider = $1 AND provider_account_id = $2${cas} RETURNING *`
          : `SELECT * FROM ${s}.accounts WHERE provider = $1 AND provider_account_id = $2`,
        [
          key.provider,
          key.providerAccountId,
          ...(set ? values : []),
          ...(set && expected !== undefined ? [expected] : []),
        ],
      )
      return row ? accountFromRow(row) : null
    },
  }
}

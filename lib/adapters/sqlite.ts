// SQLite adapter on better-sqlite3: the embedded default, one database file, tables created on first use.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- better-sqlite3 ships no types; this shim types its constructor
/// <reference path="./sqlite/better-sqlite3.d.ts" />
import BetterSqlite3 from "better-sqlite3"
import type { AccountTokenAdapter, Adapter, AdapterUser, IdpSessionAdapter } from "./types"
import { conflict, copyAuthenticator, emailKey, missingUser, newUserId, notFound, parseExtra } from "./internal/models"
import {
  accountFromRow,
  accountValues,
  ACCOUNT_INSERT_COLUMNS,
  authenticatorFromRow,
  authenticatorValues,
  AUTHENTICATOR_INSERT_COLUMNS,
  sessionExtras,
  sessionFromRow,
  tokenFromRow,
  tokenPatchSql,
  userFromRow,
  userPatch,
  userValues,
} from "./internal/rows"
import type { AccountRow, AuthenticatorRow, SessionRow, TokenRow, UserRow } from "./internal/rows"
import { addMissingColumns, SQLITE_SCHEMA } from "./sqlite/schema"
import { SQLiteStore } from "../store/sqlite"
import type { SQLiteDatabase } from "./sqlite/schema"

export type { SQLiteDatabase, SQLiteStatement } from "./sqlite/schema"

/** The file used when `SQLiteAdapter()` is called without a database or path (relative to the working directory). */
export const DEFAULT_SQLITE_PATH = "gatehouse.sqlite"

const ms = (value: Date | null | undefined): number | null => (value ? new Date(value).getTime() : null)

/** Runs `fn` inside `BEGIN IMMEDIATE … COMMIT`; better-sqlite3 is synchronous, so nothing interleaves. */
function transaction<T>(db: SQLiteDatabase, fn: () => T): T {
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

/**
 * Creates an adapter on a better-sqlite3 database. Pass an open `Database`, a file path, or nothing for
 * {@link DEFAULT_SQLITE_PATH}. The tables (`users`, `accounts`, `sessions`, `verification_tokens`, `authenticators`)
 * are created if missing, the journal is switched to WAL and foreign keys are enforced on this connection.
 * Emails are stored as given and matched on a lower-cased copy (`email_key`, unique). Every method is one
 * synchronous statement or transaction, so each call is atomic; `useVerificationToken` is one `DELETE … RETURNING`.
 *
 * @example
 * ```ts
 * import { SQLiteAdapter } from "gatehouse-auth/adapters/sqlite"
 * const adapter = SQLiteAdapter(".data/auth.sqlite")
 * app.use("/auth", ExpressAuth({ adapter, providers: [GitHub] }))
 * ```
 */
export function SQLiteAdapter(
  dbOrPath: SQLiteDatabase | string = DEFAULT_SQLITE_PATH,
): Required<Adapter> & IdpSessionAdapter & AccountTokenAdapter {
  const db: SQLiteDatabase = typeof dbOrPath === "string" ? new BetterSqlite3(dbOrPath) : dbOrPath
  db.exec("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;")
  db.exec(SQLITE_SCHEMA)
  addMissingColumns(db)

  const q = {
    insertUser: db.prepare(
      "INSERT INTO users (id, name, email, email_key, email_verified, image, extra) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *",
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
    insertAccount: db.prepare(
      `INSERT INTO accounts (${ACCOUNT_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    deleteAccount: db.prepare("DELETE FROM accounts WHERE provider = ? AND provider_account_id = ? RETURNING *"),
    account: db.prepare("SELECT * FROM accounts WHERE provider = ? AND provider_account_id = ?"),
    insertSession: db.prepare(
      `INSERT INTO sessions (session_token, user_id, expires, created_at, last_active_at, user_agent, ip)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    sessionsOf: db.prepare("SELECT * FROM sessions WHERE user_id = ?"),
    setSessionIdp: db.prepare(
      "UPDATE sessions SET provider = ?, idp_sid = ?, idp_sub = ?, auth_time = ? WHERE session_token = ? RETURNING *",
    ),
    deleteSessionsByIdp: db.prepare(
      `DELETE FROM sessions WHERE provider = ? AND (? IS NULL OR idp_sid = ?) AND (? IS NULL OR idp_sub = ?)
         RETURNING *`,
    ),
    deleteSessionsExcept: db.prepare("DELETE FROM sessions WHERE user_id = ? AND (? IS NULL OR session_token <> ?)"),
    sessionAndUser: db.prepare(
      `SELECT s.session_token, s.user_id, s.expires, s.created_at, s.last_active_at, s.user_agent, s.ip,
              s.provider, s.idp_sid, s.idp_sub, s.auth_time, u.id, u.name, u.email, u.email_verified, u.image, u.extra
         FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.session_token = ?`,
    ),
    updateSession: db.prepare(
      `UPDATE sessions SET expires = coalesce(?, expires), user_id = coalesce(?, user_id),
         last_active_at = coalesce(?, last_active_at) WHERE session_token = ? RETURNING *`,
    ),
    deleteSession: db.prepare("DELETE FROM sessions WHERE session_token = ? RETURNING *"),
    upsertToken: db.prepare(
      `INSERT INTO verification_tokens (identifier, token, expires) VALUES (?, ?, ?)
         ON CONFLICT (identifier, token) DO UPDATE SET expires = excluded.expires RETURNING *`,
    ),
    useToken: db.prepare("DELETE FROM verification_tokens WHERE identifier = ? AND token = ? RETURNING *"),
    authenticator: db.prepare("SELECT * FROM authenticators WHERE credential_id = ?"),
    insertAuthenticator: db.prepare(
      `INSERT INTO authenticators (${AUTHENTICATOR_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    authenticatorsOf: db.prepare("SELECT * FROM authenticators WHERE user_id = ? ORDER BY rowid"),
    updateCounter: db.prepare("UPDATE authenticators SET counter = ? WHERE credential_id = ? RETURNING *"),
    swapCounter: db.prepare(
      `UPDATE authenticators SET counter = ?, last_used_at = ?
         WHERE credential_id = ? AND counter = ? AND counter <= ? RETURNING *`,
    ),
    deleteAuthenticator: db.prepare("DELETE FROM authenticators WHERE credential_id = ? RETURNING *"),
    renameAuthenticator: db.prepare("UPDATE authenticators SET name = ? WHERE credential_id = ? RETURNING *"),
    touchAuthenticator: db.prepare("UPDATE authenticators SET last_used_at = ? WHERE credential_id = ? RETURNING *"),
  }

  const userOrNull = (row: unknown): AdapterUser | null => (row ? userFromRow(row as UserRow) : null)
  const rethrow = (error: unknown, cause: Record<string, unknown>, unique: () => Error): never => {
    if (isConstraint(error, "FOREIGNKEY")) throw missingUser(String(cause.userId))
    if (isConstraint(error, "UNIQUE") || isConstraint(error, "PRIMARYKEY")) throw unique()
    throw error
  }

  return {
    store: SQLiteStore(db),
    async createUser(user) {
      const id = newUserId(user)
      const { fields: f, extraJson } = userValues(user, id)
      try {
        const row = q.insertUser.get(id, f.name, f.email, f.email_key, ms(user.emailVerified), f.image, extraJson)
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
        const { columns, extra } = userPatch(patch)
        const sets = columns.map(([column]) => `${column} = ?`)
        const values = columns.map(([column, value]) =>
          column === "email_verified" ? ms(value as Date | null) : value,
        )
        const email = columns.find(([column]) => column === "email")
        if (email) {
          sets.push("email_key = ?")
          values.push(emailKey(email[1]))
        }
        sets.push("extra = ?")
        values.push(JSON.stringify({ ...parseExtra(row.extra), ...extra }))
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
        return userOrNull(q.deleteUser.get(userId))
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

    async createSession(session) {
      try {
        const [createdAt, lastActiveAt, userAgent, ip] = sessionExtras(session)
        const row = q.insertSession.get(
          session.sessionToken,
          session.userId,
          ms(session.expires),
          ms(createdAt),
          ms(lastActiveAt),
          userAgent,
          ip,
        )
        if (!session.provider) return sessionFromRow(row as SessionRow)
        const withIdp = q.setSessionIdp.get(
          session.provider,
          session.idpSid ?? null,
          session.idpSub ?? null,
          session.authTime ?? null,
          session.sessionToken,
        )
        return sessionFromRow(withIdp as SessionRow)
      } catch (error) {
        return rethrow(error, { userId: session.userId }, () => new Error("Session token already exists"))
      }
    },
    async getSessionAndUser(sessionToken) {
      const row = q.sessionAndUser.get(sessionToken) as (SessionRow & UserRow) | undefined
      return row ? { session: sessionFromRow(row), user: userFromRow(row) } : null
    },
    async updateSession(patch) {
      try {
        const row = q.updateSession.get(
          ms(patch.expires),
          patch.userId ?? null,
          ms(patch.lastActiveAt),
          patch.sessionToken,
        )
        return row ? sessionFromRow(row as SessionRow) : null
      } catch (error) {
        return rethrow(error, { userId: patch.userId }, () => new Error("Session update failed"))
      }
    },
    async deleteSession(sessionToken) {
      const row = q.deleteSession.get(sessionToken)
      return row ? sessionFromRow(row as SessionRow) : null
    },
    async listSessionsByUserId(userId) {
      return q.sessionsOf.all(userId).map((row) => sessionFromRow(row as SessionRow))
    },
    async deleteSessions({ userId, exceptToken }) {
      const except = exceptToken ?? null
      return Number(q.deleteSessionsExcept.run(userId, except, except).changes)
    },
    async deleteSessionsByIdp({ provider, idpSid, idpSub }) {
      if (idpSid === undefined && idpSub === undefined) return []
      const sid = idpSid ?? null
      const sub = idpSub ?? null
      return q.deleteSessionsByIdp.all(provider, sid, sid, sub, sub).map((row) => sessionFromRow(row as SessionRow))
    },

    async createVerificationToken(token) {
      return tokenFromRow(q.upsertToken.get(token.identifier, token.token, ms(token.expires)) as TokenRow)
    },
    async useVerificationToken({ identifier, token }) {
      const row = q.useToken.get(identifier, token)
      return row ? tokenFromRow(row as TokenRow) : null
    },

    async getAuthenticator(credentialID) {
      const row = q.authenticator.get(credentialID)
      return row ? authenticatorFromRow(row as AuthenticatorRow) : null
    },
    async createAuthenticator(authenticator) {
      const a = copyAuthenticator(authenticator)
      try {
        const row = q.insertAuthenticator.get(...authenticatorValues(a, ms, (b) => (b ? 1 : 0)))
        return authenticatorFromRow(row as AuthenticatorRow)
      } catch (error) {
        return rethrow(error, { userId: a.userId }, () => conflict("Authenticator", { credentialID: a.credentialID }))
      }
    },
    async listAuthenticatorsByUserId(userId) {
      return q.authenticatorsOf.all(userId).map((row) => authenticatorFromRow(row as AuthenticatorRow))
    },
    async updateAuthenticatorCounter(credentialID, newCounter, opts) {
      if (opts?.expected !== undefined) {
        const swapped = q.swapCounter.get(newCounter, Date.now(), credentialID, opts.expected, newCounter)
        return swapped ? authenticatorFromRow(swapped as AuthenticatorRow) : null
      }
      const row = q.updateCounter.get(newCounter, credentialID)
      if (!row) throw notFound("Authenticator", credentialID)
      return authenticatorFromRow(row as AuthenticatorRow)
    },
    async deleteAuthenticator(credentialID) {
      const row = q.deleteAuthenticator.get(credentialID)
      return row ? authenticatorFromRow(row as AuthenticatorRow) : null
    },
    async updateAuthenticator(credentialID, patch) {
      return transaction(db, () => {
        let row = q.authenticator.get(credentialID)
        if (row && patch.name !== undefined) row = q.renameAuthenticator.get(patch.name, credentialID)
        if (row && patch.lastUsedAt !== undefined) row = q.touchAuthenticator.get(ms(patch.lastUsedAt), credentialID)
        return row ? authenticatorFromRow(row as AuthenticatorRow) : null
      })
    },
  }
}

export default SQLiteAdapter

// PostgreSQL adapter on `pg`: foreign keys with cascades, one query per session check, transactions when asked.
import type { Pool, PoolClient } from "pg"
import type { AccountKey, AccountTokenAdapter, AccountTokenPatch, Adapter } from "./types"
import { conflict, copyAuthenticator, emailKey, missingUser, newUserId, notFound } from "./internal/models"
import {
  accountFromRow,
  accountValues,
  ACCOUNT_INSERT_COLUMNS,
  authenticatorFromRow,
  authenticatorValues,
  AUTHENTICATOR_INSERT_COLUMNS,
  sessionExtras,
  sessionFromRow,
  sessionIdp,
  tokenFromRow,
  tokenPatchSql,
  userFromRow,
  userPatch,
  userValues,
} from "./internal/rows"
import type { AccountRow, AuthenticatorRow, SessionRow, TokenRow, UserRow } from "./internal/rows"
import { quoteSchema } from "./postgres/schema"
import { PostgresStore } from "../store/postgres"
import type { KeyValueStore } from "../store/types"

export { migrate, POSTGRES_SCHEMA } from "./postgres/schema"
export type { MigrateOptions } from "./postgres/schema"

/** Options of {@link PostgresAdapter}. */
export interface PostgresAdapterOptions {
  /** The PostgreSQL schema holding the tables (see `migrate`). Default `public`. */
  schema?: string
}

/** The PostgreSQL adapter: every `Adapter` method, plus `transaction()` for writes that must succeed together. */
export type PostgresAdapterInstance = Required<Adapter> &
  AccountTokenAdapter & {
    /**
     * Runs `fn` with an adapter bound to one connection inside `BEGIN … COMMIT`; a rejection rolls everything back.
     *
     * @example
     * ```ts
     * await adapter.transaction(async (tx) => {
     *   const user = await tx.createUser(newUser)
     *   await tx.linkAccount({ ...account, userId: user.id })
     * })
     * ```
     */
    transaction<T>(fn: (tx: Required<Adapter>) => Promise<T>): Promise<T>
  }

type Queryable = Pick<Pool | PoolClient, "query">

function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "string" ? code : undefined
}

/** Turns PostgreSQL constraint violations into the adapters' fixed errors; anything else is rethrown as is. */
function translate(error: unknown, userId: unknown, unique: () => Error): never {
  if (pgCode(error) === "23503") throw missingUser(String(userId))
  if (pgCode(error) === "23505") throw unique()
  throw error
}

function buildAdapter(db: Queryable, s: string, store: KeyValueStore): Required<Adapter> & AccountTokenAdapter {
  const one = async <R>(sql: string, values: unknown[]): Promise<R | null> => {
    const result = await db.query(sql, values)
    return (result.rows[0] as R | undefined) ?? null
  }

  return {
    store,
    async createUser(user) {
      const id = newUserId(user)
      const { fields: f, extraJson } = userValues(user, id)
      try {
        const row = await one<UserRow>(
          `INSERT INTO ${s}.users (id, name, email, email_verified, image, extra)
             VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING *`,
          [id, f.name, f.email, f.email_verified, f.image, extraJson],
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
      const { columns, extra } = userPatch(patch)
      const values: unknown[] = [patch.id, JSON.stringify(extra)]
      const sets = ["extra = extra || $2::jsonb"]
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
      // Accounts, sessions and authenticators go with the user (ON DELETE CASCADE) in this one statement.
      const row = await one<UserRow>(`DELETE FROM ${s}.users WHERE id = $1 RETURNING *`, [userId])
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

    async createSession(session) {
      try {
        const row = await one<SessionRow>(
          `INSERT INTO ${s}.sessions (session_token, user_id, expires, created_at, last_active_at, user_agent, ip,
             provider, idp_sid, idp_sub, auth_time)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
          [session.sessionToken, session.userId, session.expires, ...sessionExtras(session), ...sessionIdp(session)],
        )
        return sessionFromRow(row as SessionRow)
      } catch (error) {
        return translate(error, session.userId, () => new Error("Session token already exists"))
      }
    },
    async getSessionAndUser(sessionToken) {
      // One query per session check.
      const row = await one<SessionRow & UserRow>(
        `SELECT s.session_token, s.user_id, s.expires, s.created_at, s.last_active_at, s.user_agent, s.ip,
                  s.provider, s.idp_sid, s.idp_sub, s.auth_time, u.id, u.name, u.email, u.email_verified, u.image, u.extra
           FROM ${s}.sessions s JOIN ${s}.users u ON u.id = s.user_id WHERE s.session_token = $1`,
        [sessionToken],
      )
      return row ? { session: sessionFromRow(row), user: userFromRow(row) } : null
    },
    async updateSession(patch) {
      try {
        const row = await one<SessionRow>(
          `UPDATE ${s}.sessions SET expires = coalesce($2, expires), user_id = coalesce($3, user_id),
             last_active_at = coalesce($4, last_active_at) WHERE session_token = $1 RETURNING *`,
          [patch.sessionToken, patch.expires ?? null, patch.userId ?? null, patch.lastActiveAt ?? null],
        )
        return row ? sessionFromRow(row) : null
      } catch (error) {
        return translate(error, patch.userId, () => new Error("Session update failed"))
      }
    },
    async deleteSession(sessionToken) {
      const row = await one<SessionRow>(`DELETE FROM ${s}.sessions WHERE session_token = $1 RETURNING *`, [
        sessionToken,
      ])
      return row ? sessionFromRow(row) : null
    },
    async listSessionsByUserId(userId) {
      const result = await db.query(`SELECT * FROM ${s}.sessions WHERE user_id = $1`, [userId])
      return result.rows.map((row) => sessionFromRow(row as SessionRow))
    },
    async deleteSessions({ userId, exceptToken }) {
      const result = await db.query(
        `DELETE FROM ${s}.sessions WHERE user_id = $1 AND ($2::text IS NULL OR session_token <> $2)`,
        [userId, exceptToken ?? null],
      )
      return result.rowCount ?? 0
    },
    async deleteSessionsByIdp({ provider, idpSid, idpSub }) {
      if (idpSid === undefined && idpSub === undefined) return []
      const result = await db.query(
        `DELETE FROM ${s}.sessions
           WHERE provider = $1 AND ($2::text IS NULL OR idp_sid = $2) AND ($3::text IS NULL OR idp_sub = $3)
           RETURNING *`,
        [provider, idpSid ?? null, idpSub ?? null],
      )
      return result.rows.map((row) => sessionFromRow(row as SessionRow))
    },

    async createVerificationToken(token) {
      const row = await one<TokenRow>(
        `INSERT INTO ${s}.verification_tokens (identifier, token, expires) VALUES ($1, $2, $3)
           ON CONFLICT (identifier, token) DO UPDATE SET expires = excluded.expires RETURNING *`,
        [token.identifier, token.token, token.expires],
      )
      return tokenFromRow(row as TokenRow)
    },
    async useVerificationToken({ identifier, token }) {
      // Compare-and-delete in one statement: of two concurrent calls, the second finds no row to delete.
      const row = await one<TokenRow>(
        `DELETE FROM ${s}.verification_tokens WHERE identifier = $1 AND token = $2 RETURNING *`,
        [identifier, token],
      )
      return row ? tokenFromRow(row) : null
    },

    async getAuthenticator(credentialID) {
      const row = await one<AuthenticatorRow>(`SELECT * FROM ${s}.authenticators WHERE credential_id = $1`, [
        credentialID,
      ])
      return row ? authenticatorFromRow(row) : null
    },
    async createAuthenticator(authenticator) {
      const a = copyAuthenticator(authenticator)
      try {
        const row = await one<AuthenticatorRow>(
          `INSERT INTO ${s}.authenticators (${AUTHENTICATOR_INSERT_COLUMNS})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
          authenticatorValues(
            a,
            (d) => d,
            (b) => b,
          ),
        )
        return authenticatorFromRow(row as AuthenticatorRow)
      } catch (error) {
        return translate(error, a.userId, () => conflict("Authenticator", { credentialID: a.credentialID }))
      }
    },
    async listAuthenticatorsByUserId(userId) {
      const result = await db.query(`SELECT * FROM ${s}.authenticators WHERE user_id = $1 ORDER BY credential_id`, [
        userId,
      ])
      return result.rows.map((row) => authenticatorFromRow(row as AuthenticatorRow))
    },
    async updateAuthenticatorCounter(credentialID, newCounter, opts) {
      if (opts?.expected !== undefined) {
        // Compare-and-swap in one statement: of two racing updates from the same read, only one matches.
        const swapped = await one<AuthenticatorRow>(
          `UPDATE ${s}.authenticators SET counter = $2, last_used_at = $4
             WHERE credential_id = $1 AND counter = $3 AND counter <= $2 RETURNING *`,
          [credentialID, newCounter, opts.expected, new Date()],
        )
        return swapped ? authenticatorFromRow(swapped) : null
      }
      const row = await one<AuthenticatorRow>(
        `UPDATE ${s}.authenticators SET counter = $2 WHERE credential_id = $1 RETURNING *`,
        [credentialID, newCounter],
      )
      if (!row) throw notFound("Authenticator", credentialID)
      return authenticatorFromRow(row)
    },
    async deleteAuthenticator(credentialID) {
      const row = await one<AuthenticatorRow>(`DELETE FROM ${s}.authenticators WHERE credential_id = $1 RETURNING *`, [
        credentialID,
      ])
      return row ? authenticatorFromRow(row) : null
    },
    async updateAuthenticator(credentialID, patch) {
      const row = await one<AuthenticatorRow>(
        `UPDATE ${s}.authenticators
            SET name = CASE WHEN $2 THEN $3 ELSE name END, last_used_at = CASE WHEN $4 THEN $5 ELSE last_used_at END
          WHERE credential_id = $1 RETURNING *`,
        [
          credentialID,
          patch.name !== undefined,
          patch.name ?? null,
          patch.lastUsedAt !== undefined,
          patch.lastUsedAt ?? null,
        ],
      )
      return row ? authenticatorFromRow(row) : null
    },
  }
}

function ignoreIdleError(): void {
  // See PostgresAdapter: the failing queries, not idle disconnects, are what gets reported.
}

/**
 * Creates an adapter on a `pg` pool. Run {@link migrate} (or `schema.sql`) once first. Emails are stored as given and
 * matched with `lower(email) = lower($1)` (unique index on `lower(email)`). Deleting a user cascades to its accounts,
 * sessions and authenticators through foreign keys; `useVerificationToken` is one `DELETE … RETURNING` matching
 * identifier and token; `getSessionAndUser` is one query. Driver errors (connection refused, pool ended) are rethrown
 * unchanged for the core to wrap.
 *
 * @example
 * ```ts
 * import { Pool } from "pg"
 * import { PostgresAdapter, migrate } from "gatehouse-auth/adapters/postgres"
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL })
 * await migrate(pool)
 * app.use("/auth", ExpressAuth({ adapter: PostgresAdapter(pool), providers: [GitHub] }))
 * ```
 */
export function PostgresAdapter(pool: Pool, options: PostgresAdapterOptions = {}): PostgresAdapterInstance {
  const schema = quoteSchema(options.schema ?? "public")
  // An idle pooled connection that the server (or a network hop) drops makes the pool emit "error"; with no listener
  // that crashes the process. The pool discards the broken client by itself and the next query reconnects, and the
  // queries that fail reject (and are logged by the core), so this listener only keeps the process alive.
  if (typeof pool.on === "function" && !pool.listeners("error").includes(ignoreIdleError)) {
    pool.on("error", ignoreIdleError)
  }
  // The key-value store always runs on the pool: its writes are single statements and must not roll back with a tx.
  const store = PostgresStore(pool, { schema: options.schema })
  return {
    ...buildAdapter(pool, schema, store),
    async transaction(fn) {
      const client = await pool.connect()
      let broken: Error | undefined
      // A checked-out client that loses its connection emits "error"; unheard, that would crash the process.
      const onError = (error: Error): void => {
        broken = error
      }
      client.on("error", onError)
      try {
        await client.query("BEGIN")
        const result = await fn(buildAdapter(client, schema, store))
        await client.query("COMMIT")
        return result
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error("Rollback failed")
        })
        throw error
      } finally {
        client.off("error", onError)
        client.release(broken)
      }
    },
  }
}

export default PostgresAdapter

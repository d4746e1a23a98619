// The PostgreSQL adapter's sessions: create/read/slide/delete, management, back-channel logout, email tokens.
import type { IdpSessionAdapter, SessionAdapter, SessionManagementAdapter, VerificationTokenAdapter } from "../adapter"
import { sessionExtras, sessionFromRow, sessionIdp, tokenFromRow, userFromRow } from "../internal/rows"
import type { SessionRow, TokenRow, UserRow } from "../internal/rows"
import { queryOne, translate } from "./query"
import type { Queryable } from "./query"

/** The session, session-management, back-channel logout and verification-token methods on `db`, in schema `s`. */
export function sessionMethods(
  db: Queryable,
  s: string,
): SessionAdapter & SessionManagementAdapter & IdpSessionAdapter & VerificationTokenAdapter {
  const one = <R>(sql: string, values: unknown[]) => queryOne<R>(db, sql, values)
  return {
    async createSession(session) {
      try {
        const row = await one<SessionRow>(
          `INSERT INTO ${s}.sessions (session_token, user_id, expires, created_at, last_active_at, user_agent, ip,
             provider, idp_sid, idp_sub, auth_time, impersonated_by)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`,
          [
            session.sessionToken,
            session.userId,
            session.expires,
            ...sessionExtras(session),
            ...sessionIdp(session),
            typeof session.impersonatedBy === "string" ? session.impersonatedBy : null,
          ],
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
                  s.provider, s.idp_sid, s.idp_sub, s.auth_time, s.impersonated_by, u.id, u.name, u.email, u.email_verified, u.image, u.extra,
              u.role, u.banned, u.ban_reason, u.ban_expires
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
  }
}

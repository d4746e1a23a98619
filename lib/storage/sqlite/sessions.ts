// The SQLite adapter's sessions: create/read/slide/delete, management, back-channel logout, email tokens.
import type { IdpSessionAdapter, SessionAdapter, SessionManagementAdapter, VerificationTokenAdapter } from "../adapter"
import { sessionExtras, sessionFromRow, tokenFromRow, userFromRow } from "../internal/rows"
import type { SessionRow, TokenRow, UserRow } from "../internal/rows"
import type { SQLiteDatabase } from "./schema"
import { ms, rethrow } from "./sql"

/** The session, session-management, back-channel logout and verification-token methods on `db`. */
export function sessionMethods(
  db: SQLiteDatabase,
): SessionAdapter & SessionManagementAdapter & IdpSessionAdapter & VerificationTokenAdapter {
  const q = {
    insertSession: db.prepare(
      `INSERT INTO sessions (session_token, user_id, expires, created_at, last_active_at, user_agent, ip, impersonated_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
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
              s.provider, s.idp_sid, s.idp_sub, s.auth_time, s.impersonated_by, u.id, u.name, u.email, u.email_verified, u.image, u.extra,
              u.role, u.banned, u.ban_reason, u.ban_expires
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
  }

  return {
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
          typeof session.impersonatedBy === "string" ? session.impersonatedBy : null,
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
  }
}

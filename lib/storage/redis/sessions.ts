// The Redis adapter's sessions: create/read/slide/delete, management, back-channel logout, email tokens.
import type { IdpSessionAdapter, SessionAdapter, SessionManagementAdapter, VerificationTokenAdapter } from "../adapter"
import { copySession, missingUser, tokenOwnerKey } from "../internal/models"
import { durable, expectOk, pxat, reviveSession, reviveToken, reviveUser } from "./keys"
import type { RedisContext } from "./keys"
import * as lua from "./scripts"

/** The session, session-management, back-channel logout and verification-token methods. */
export function sessionMethods(
  ctx: RedisContext,
): SessionAdapter & SessionManagementAdapter & IdpSessionAdapter & VerificationTokenAdapter {
  const { client, p, key } = ctx
  return {
    async createSession(session) {
      const stored = copySession(session)
      const provider = stored.provider ?? ""
      const bySid = provider !== "" && stored.idpSid !== undefined && stored.idpSid !== null
      const bySub = provider !== "" && stored.idpSub !== undefined && stored.idpSub !== null
      const status = await lua.run(
        client,
        lua.CREATE_SESSION,
        [
          key.user(stored.userId),
          key.session(stored.sessionToken),
          key.sessionsOf(stored.userId),
          bySid ? key.idpSid(provider, stored.idpSid as string) : key.idpNone,
          bySub ? key.idpSub(provider, stored.idpSub as string) : key.idpNone,
        ],
        [JSON.stringify(stored), pxat(stored.expires), bySid ? "1" : "", bySub ? "1" : ""],
      )
      expectOk(status, stored.userId, () => new Error("Session token already exists"))
      await durable(ctx, key.session(stored.sessionToken))
      return copySession(stored)
    },
    async getSessionAndUser(sessionToken) {
      const found = await lua.run(client, lua.RECORD_AND_USER, [key.session(sessionToken)], [p])
      if (!Array.isArray(found)) return null
      return { session: reviveSession(String(found[0])), user: reviveUser(String(found[1])) }
    },
    async updateSession(patch) {
      const expires = patch.expires ? new Date(patch.expires) : undefined
      const json = await lua.run(
        client,
        lua.UPDATE_SESSION,
        [key.session(patch.sessionToken)],
        [
          p,
          expires?.toISOString() ?? "",
          expires ? pxat(expires) : "",
          patch.userId ?? "",
          patch.lastActiveAt ? new Date(patch.lastActiveAt).toISOString() : "",
        ],
      )
      if (json === "user") throw missingUser(String(patch.userId))
      return typeof json === "string" ? reviveSession(json) : null
    },
    async deleteSession(sessionToken) {
      const json = await lua.run(client, lua.DELETE_OWNED, [key.session(sessionToken)], [p, "user-sessions"])
      if (typeof json !== "string") return null
      await durable(ctx, key.session(sessionToken))
      return reviveSession(json)
    },
    async listSessionsByUserId(userId) {
      const list = await lua.run(client, lua.LIST_SET, [key.sessionsOf(userId)], [])
      return Array.isArray(list) ? list.map((json) => reviveSession(String(json))) : []
    },
    async deleteSessions({ userId, exceptToken }) {
      const keep = exceptToken === undefined ? "" : key.session(exceptToken)
      const deleted = Number(await lua.run(client, lua.DELETE_SESSIONS, [key.sessionsOf(userId)], [keep]))
      await durable(ctx, key.sessionsOf(userId))
      return deleted
    },
    async deleteSessionsByIdp({ provider, idpSid, idpSub }) {
      if (idpSid === undefined && idpSub === undefined) return []
      const index = idpSid !== undefined ? key.idpSid(provider, idpSid) : key.idpSub(provider, idpSub as string)
      const list = await lua.run(client, lua.DELETE_SESSIONS_BY_IDP, [index], [p, provider, idpSid ?? "", idpSub ?? ""])
      await durable(ctx, index)
      return Array.isArray(list) ? list.map((json) => reviveSession(String(json))) : []
    },

    async createVerificationToken(token) {
      const stored = { identifier: token.identifier, token: token.token, expires: new Date(token.expires) }
      const member = key.token(stored.identifier, stored.token)
      // Indexed under the address it belongs to before it is written (a crash between leaves only a member naming
      // nothing), so that deleteUser finds it; the index lives as long as its longest-lived token.
      const life = pxat(stored.expires) - Date.now()
      if (life > 0) {
        await lua.run(client, lua.ADD_EXPIRING_MEMBER, [key.tokensOf(tokenOwnerKey(stored.identifier))], [member, life])
      }
      await client.set(member, JSON.stringify(stored), "PXAT", pxat(stored.expires))
      return stored
    },
    async useVerificationToken({ identifier, token }) {
      // GETDEL is atomic: of two concurrent calls, exactly one receives the value.
      const json = await client.getdel(key.token(identifier, token))
      if (json === null) return null
      await durable(ctx, key.token(identifier, token))
      const stored = reviveToken(json)
      return stored.identifier === identifier && stored.token === token ? stored : null
    },
  }
}

// The Redis adapter's sessions in the cluster layout. A session record lives in its own slot; the user's sessions
// are a sorted set in the user's slot, scored by expiry. A session is listed in its user's set (and in its OP indexes)
// before its record is written, and unlisted only after the record is gone, so a crash between two steps leaves at
// most a member without a record (dropped once its expiry passes), never a session that revocation cannot find.
import type { SessionAdapter, SessionManagementAdapter, IdpSessionAdapter } from "../adapter"
import { copySession, missingUser } from "../internal/models"
import * as c from "./cluster-scripts"
import { durable, pxat, reviveSession, reviveUser } from "./keys"
import type { RedisContext } from "./keys"
import * as lua from "./scripts"

type Methods = Pick<
  SessionAdapter & SessionManagementAdapter & IdpSessionAdapter,
  | "createSession"
  | "getSessionAndUser"
  | "updateSession"
  | "deleteSession"
  | "listSessionsByUserId"
  | "deleteSessions"
  | "deleteSessionsByIdp"
>

/** The session methods whose single-node scripts span slots, for the cluster layout. */
export function clusterSessionMethods(ctx: RedisContext): Methods {
  const { client, key } = ctx

  /** Lists `member` in user `userId`'s sessions until `expires`: whether it was added; throws if there is no user. */
  const list = async (userId: string, member: string, expires: number): Promise<boolean> => {
    const args = [member, expires, Date.now()]
    const added = Number(await lua.run(client, c.ADD_SESSION_MEMBER, [key.user(userId), key.sessionsOf(userId)], args))
    if (added < 0) throw missingUser(userId)
    return added === 1
  }

  return {
    async createSession(session) {
      const stored = copySession(session)
      const member = key.session(stored.sessionToken)
      const expires = pxat(stored.expires)
      const added = await list(stored.userId, member, expires)
      const provider = stored.provider ?? ""
      const indexes = [
        provider !== "" && typeof stored.idpSid === "string" ? key.idpSid(provider, stored.idpSid) : undefined,
        provider !== "" && typeof stored.idpSub === "string" ? key.idpSub(provider, stored.idpSub) : undefined,
      ].filter((index): index is string => index !== undefined)
      const ttl = Math.max(1, expires - Date.now())
      await Promise.all(indexes.map((index) => lua.run(client, lua.ADD_EXPIRING_MEMBER, [index], [member, ttl])))
      if ((await client.set(member, JSON.stringify(stored), "PXAT", expires, "NX")) !== "OK") {
        if (added) await client.zrem(key.sessionsOf(stored.userId), member)
        throw new Error("Session token already exists")
      }
      await durable(ctx, member)
      return copySession(stored)
    },
    async getSessionAndUser(sessionToken) {
      const json = await client.get(key.session(sessionToken))
      if (json === null) return null
      const session = reviveSession(json)
      const user = await client.get(key.user(session.userId))
      // A session whose user is gone grants nothing.
      return user === null ? null : { session, user: reviveUser(user) }
    },
    async updateSession(patch) {
      const member = key.session(patch.sessionToken)
      const current = await client.get(member)
      if (current === null) return null
      const before = reviveSession(current)
      const expires = patch.expires ? new Date(patch.expires) : undefined
      const moving = patch.userId !== undefined && patch.userId !== before.userId
      const owner = moving ? patch.userId! : before.userId
      // The owner's set learns the (new) expiry before the record does: it never lists a session shorter than it lives.
      if (moving) await list(owner, member, pxat(expires ?? before.expires))
      else if (expires) await client.zadd(key.sessionsOf(owner), "XX", pxat(expires), member)
      const json = await lua.run(
        client,
        c.PATCH_SESSION,
        [member],
        [
          expires?.toISOString() ?? "",
          expires ? pxat(expires) : "",
          moving ? owner : "",
          patch.lastActiveAt ? new Date(patch.lastActiveAt).toISOString() : "",
        ],
      )
      if (moving) await client.zrem(key.sessionsOf(before.userId), member)
      return typeof json === "string" ? reviveSession(json) : null
    },
    async deleteSession(sessionToken) {
      const member = key.session(sessionToken)
      const json = await lua.run(client, c.TAKE, [member], [])
      if (typeof json !== "string") return null
      await durable(ctx, member)
      const deleted = reviveSession(json)
      await client.zrem(key.sessionsOf(deleted.userId), member)
      return deleted
    },
    async listSessionsByUserId(userId) {
      const members = await client.zrange(key.sessionsOf(userId), 0, -1)
      const found = await Promise.all(members.map((member) => client.get(member)))
      return found
        .filter((json): json is string => json !== null)
        .map(reviveSession)
        .filter((s) => s.userId === userId)
    },
    async deleteSessions({ userId, exceptToken }) {
      const keep = exceptToken === undefined ? "" : key.session(exceptToken)
      const members = (await client.zrange(key.sessionsOf(userId), 0, -1)).filter((member) => member !== keep)
      const taken = await Promise.all(members.map((member) => lua.run(client, c.TAKE_IF_OWNED, [member], [userId])))
      // Only what was deleted is unlisted: a member whose record is not written yet stays findable.
      const gone = members.filter((_, i) => typeof taken[i] === "string")
      await Promise.all(gone.map((member) => durable(ctx, member)))
      if (gone.length > 0) await client.zrem(key.sessionsOf(userId), ...gone)
      return gone.length
    },
    async deleteSessionsByIdp({ provider, idpSid, idpSub }) {
      if (idpSid === undefined && idpSub === undefined) return []
      const index = idpSid !== undefined ? key.idpSid(provider, idpSid) : key.idpSub(provider, idpSub as string)
      const members = await client.smembers(index)
      const args = [provider, idpSid ?? "", idpSub ?? ""]
      const taken = await Promise.all(members.map((member) => lua.run(client, c.TAKE_IDP_SESSION, [member], args)))
      const out = []
      for (const [i, json] of taken.entries()) {
        if (typeof json !== "string") continue
        const session = reviveSession(json)
        await durable(ctx, members[i]!)
        await client.zrem(key.sessionsOf(session.userId), members[i]!)
        await client.srem(index, members[i]!)
        out.push(session)
      }
      return out
    },
  }
}

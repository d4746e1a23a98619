// The Redis adapter's users, accounts and authenticators in the cluster layout. A user's record and sets share the
// hash tag `{<id>}`; an email index, an account and an authenticator each live in their own slot. What needs two of
// those runs in an order that a crash between the steps can leave only harmless garbage: a set member is added before
// its record is written and removed after the record is deleted, an email claim is taken before the user it names
// exists, and a lookup checks that what an index names still agrees with it.
import type { AccountTokenAdapter, AdapterAccount, AdapterUser, AuthenticatorAdapter, UserAdapter } from "../adapter"
import { conflict, copyAuthenticator, emailKey, missingUser, newUserId, notFound } from "../internal/models"
import * as c from "./cluster-scripts"
import {
  directoryMemberOf,
  durable,
  emailIndex,
  MAX_RETRIES,
  reviveAccount,
  reviveAuthenticator,
  reviveUser,
  tokenIndex,
  userUpdate,
} from "./keys"
import type { RedisContext } from "./keys"
import * as lua from "./scripts"

type Methods = Pick<
  UserAdapter & AuthenticatorAdapter,
  | "createUser"
  | "getUserByEmail"
  | "getUserByAccount"
  | "updateUser"
  | "deleteUser"
  | "linkAccount"
  | "unlinkAccount"
  | "createAuthenticator"
  | "listAuthenticatorsByUserId"
  | "deleteAuthenticator"
> &
  Partial<AccountTokenAdapter>

const withoutUndefinedOrNull = (value: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null))

/** The methods whose single-node scripts span slots, for the cluster layout; the others are shared with it. */
export function clusterUserMethods(ctx: RedisContext): Methods {
  const { client, key } = ctx
  const userOf = async (id: string): Promise<AdapterUser | null> => {
    const json = await client.get(key.user(id))
    return json === null ? null : reviveUser(json)
  }

  /**
   * Claims the email index `index` for user `id`: `"claimed"` (now ours), `"ours"` (it already was) or `"taken"` (by
   * another live user with that email). A claim left by a user that no longer exists, or no longer has that email
   * (a crash between the steps of a create, update or delete), is taken over.
   */
  const claimEmail = async (index: string, id: string): Promise<"claimed" | "ours" | "taken"> => {
    for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
      if ((await client.set(index, id, "NX")) === "OK") return "claimed"
      const owner = await client.get(index)
      if (owner === null) continue
      if (owner === id) return "ours"
      const holder = await userOf(owner)
      if (holder !== null && emailIndex(ctx, holder.email) === index) return "taken"
      if (Number(await lua.run(client, c.COMPARE_AND_SET, [index], [owner, id])) === 1) return "claimed"
    }
    throw new Error("Email claim kept conflicting", { cause: { id } })
  }
  const releaseEmail = (index: string, id: string) => lua.run(client, c.COMPARE_AND_DELETE, [index], [id])

  /** Adds `member` to a set of user `userId` (before its record is written): whether it was added; throws if no user. */
  const addMember = async (userId: string, set: string, member: string): Promise<boolean> => {
    const added = Number(await lua.run(client, c.ADD_MEMBER, [key.user(userId), set], [member]))
    if (added < 0) throw missingUser(userId)
    return added === 1
  }

  /**
   * Writes a record owned by `userId` under `member`, listed in the user's `set` first. A record that exists already
   * is a conflict, unless its user is gone (left by a crash in `deleteUser`): then it is cleared and written anew.
   */
  const createOwned = async (userId: string, set: string, member: string, json: string, onExists: () => Error) => {
    const added = await addMember(userId, set, member)
    for (let attempt = 0; attempt < 2; attempt++) {
      if ((await client.set(member, json, "NX")) === "OK") return
      const existing = await client.get(member)
      if (existing === null) continue
      const owner = (JSON.parse(existing) as { userId: string }).userId
      if ((await userOf(owner)) !== null || attempt > 0) break
      await lua.run(client, c.COMPARE_AND_DELETE, [member], [existing])
    }
    if (added) await client.srem(set, member)
    throw onExists()
  }

  /**
   * Deletes the records of `members` that still belong to `userId`, each in its own slot (and waits for replicas).
   * Answers the deleted records' members and JSON.
   */
  const deleteOwned = async (members: readonly string[], userId: string) =>
    (
      await Promise.all(
        members.map(async (member) => {
          const taken = await lua.run(client, c.TAKE_IF_OWNED, [member], [userId])
          if (typeof taken !== "string") return null
          await durable(ctx, member)
          return { member, json: taken }
        }),
      )
    ).filter((t): t is { member: string; json: string } => t !== null)

  /** Takes deleted sessions out of the back-channel logout indexes they joined (an emptied set is gone with them). */
  const unindexSessions = async (taken: ReadonlyArray<{ member: string; json: string }>) => {
    for (const { member, json } of taken) {
      const s = JSON.parse(json) as { sessionToken?: unknown; provider?: unknown; idpSid?: unknown; idpSub?: unknown }
      if (typeof s.sessionToken !== "string" || typeof s.provider !== "string" || s.provider === "") continue
      if (typeof s.idpSid === "string") await client.srem(key.idpSid(s.provider, s.idpSid), member)
      if (typeof s.idpSub === "string") await client.srem(key.idpSub(s.provider, s.idpSub), member)
    }
  }

  /** Deletes the verification tokens an address's token index lists (each in its own slot), then the index. */
  const deleteTokens = async (index: string) => {
    if (index === "") return
    const members = await client.smembers(index)
    await Promise.all(members.map((member) => client.del(member)))
    await client.del(index)
  }

  return {
    async createUser(user) {
      const id = newUserId(user)
      const stored = { ...user, id, emailVerified: user.emailVerified ?? null }
      if ((await client.exists(key.user(id))) === 1) throw conflict("User id", { id })
      const index = emailIndex(ctx, user.email)
      const claim = index === "" ? "none" : await claimEmail(index, id)
      if (claim === "taken") throw conflict("Email", { email: user.email })
      // Listed before the record exists: a member whose user is missing or differs is skipped by the listing.
      await client.zadd(key.usersByEmail, 0, directoryMemberOf(stored))
      if ((await client.set(key.user(id), JSON.stringify(stored), "NX")) !== "OK") {
        if (claim === "claimed") await releaseEmail(index, id)
        throw conflict("User id", { id })
      }
      return reviveUser(JSON.stringify(stored))
    },
    async getUserByEmail(email) {
      const k = emailKey(email)
      if (k === null) return null
      const id = await client.get(key.email(k))
      const user = id === null ? null : await userOf(id)
      // An index left behind by a change of email (or a crash) names someone who no longer has it.
      return user !== null && emailKey(user.email) === k ? user : null
    },
    async getUserByAccount(account) {
      const json = await client.get(key.account(account))
      return json === null ? null : userOf(reviveAccount(json).userId)
    },
    async updateUser(patch) {
      for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
        const { current, before, next, json } = await userUpdate(ctx, patch)
        const [oldIndex, newIndex] = [emailIndex(ctx, before.email), emailIndex(ctx, next.email)]
        const claim = newIndex !== oldIndex && newIndex !== "" ? await claimEmail(newIndex, patch.id) : "none"
        if (claim === "taken") throw conflict("Email", { email: next.email })
        const [oldMember, newMember] = [directoryMemberOf(before), directoryMemberOf(next)]
        const moved = !oldMember.equals(newMember)
        if (moved) await client.zadd(key.usersByEmail, 0, newMember)
        const status = await lua.run(client, lua.SWAP_ACCOUNT, [key.user(patch.id)], [current, json])
        if (status === "ok") {
          if (oldIndex !== newIndex && oldIndex !== "") await releaseEmail(oldIndex, patch.id)
          if (moved) await client.zrem(key.usersByEmail, oldMember)
          return reviveUser(json)
        }
        if (claim === "claimed") await releaseEmail(newIndex, patch.id)
        if (status === "missing") throw notFound("User", patch.id)
      }
      throw new Error("User update kept conflicting", { cause: { id: patch.id } })
    },
    async deleteUser(userId) {
      for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
        const current = await client.get(key.user(userId))
        if (current === null) return null
        // Sessions first: whatever happens after, no session of this user is left that its set does not list.
        await unindexSessions(await deleteOwned(await client.zrange(key.sessionsOf(userId), 0, -1), userId))
        const keys = [
          key.user(userId),
          key.accountsOf(userId),
          key.sessionsOf(userId),
          key.authenticatorsOf(userId),
          key.twoFactor(userId),
        ]
        const result = await lua.run(client, c.DELETE_USER, keys, [current])
        if (result === "missing") return null
        if (!Array.isArray(result)) continue
        // What was listed when the record went (a session signed in meanwhile included).
        await unindexSessions(await deleteOwned((result as string[][]).flat(), userId))
        const deleted = JSON.parse(current) as AdapterUser
        const index = emailIndex(ctx, deleted.email)
        if (index !== "") await releaseEmail(index, userId)
        await client.zrem(key.usersByEmail, directoryMemberOf(deleted))
        await deleteTokens(tokenIndex(ctx, deleted.email))
        return reviveUser(current)
      }
      throw new Error("User delete kept conflicting", { cause: { id: userId } })
    },
    async linkAccount(account) {
      const stored = withoutUndefinedOrNull(account) as AdapterAccount
      await createOwned(
        account.userId,
        key.accountsOf(account.userId),
        key.account(account),
        JSON.stringify(stored),
        () => conflict("Account", { provider: account.provider }),
      )
      return reviveAccount(JSON.stringify(stored))
    },
    async unlinkAccount(account) {
      const json = await lua.run(client, c.TAKE, [key.account(account)], [])
      if (typeof json !== "string") return null
      const unlinked = reviveAccount(json)
      await client.srem(key.accountsOf(unlinked.userId), key.account(account))
      return unlinked
    },
    async createAuthenticator(authenticator) {
      const stored = copyAuthenticator(authenticator)
      const member = key.authenticator(stored.credentialID)
      await createOwned(stored.userId, key.authenticatorsOf(stored.userId), member, JSON.stringify(stored), () =>
        conflict("Authenticator", { credentialID: stored.credentialID }),
      )
      return copyAuthenticator(stored)
    },
    async listAuthenticatorsByUserId(userId) {
      const members = await client.smembers(key.authenticatorsOf(userId))
      const found = await Promise.all(members.map((member) => client.get(member)))
      return found
        .filter((json): json is string => json !== null)
        .map(reviveAuthenticator)
        .filter((a) => a.userId === userId)
    },
    async deleteAuthenticator(credentialID) {
      const json = await lua.run(client, c.TAKE, [key.authenticator(credentialID)], [])
      if (typeof json !== "string") return null
      const deleted = reviveAuthenticator(json)
      await client.srem(key.authenticatorsOf(deleted.userId), key.authenticator(credentialID))
      return deleted
    },
  }
}

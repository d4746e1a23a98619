// The Redis adapter's users and accounts, with the accounts' token compare-and-swap.
import type { AccountTokenAdapter, AdapterAccount, AdapterUser, UserAdapter } from "../adapter"
import { conflict, emailKey, newUserId, notFound } from "../internal/models"
import { TOKEN_COLUMNS } from "../internal/rows"
import {
  directoryMemberOf,
  durable,
  emailIndex,
  expectOk,
  MAX_RETRIES,
  reviveAccount,
  reviveSession,
  reviveUser,
  tokenIndex,
  userUpdate,
} from "./keys"
import type { RedisContext } from "./keys"
import * as lua from "./scripts"

const withoutUndefinedOrNull = (value: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null))

/** The users-and-accounts methods. */
export function userMethods(ctx: RedisContext): UserAdapter & AccountTokenAdapter {
  const { client, p, key } = ctx
  const userFrom = (json: unknown): AdapterUser | null => (typeof json === "string" ? reviveUser(json) : null)
  return {
    async createUser(user) {
      const id = newUserId(user)
      const stored = { ...user, id, emailVerified: user.emailVerified ?? null }
      const index = emailIndex(ctx, user.email)
      const keys = index === "" ? [key.user(id)] : [key.user(id), index]
      const status = await lua.run(client, lua.CREATE_USER, keys, [
        JSON.stringify(stored),
        id,
        key.usersByEmail,
        directoryMemberOf(stored),
      ])
      if (status === "id") throw conflict("User id", { id })
      if (status === "email") throw conflict("Email", { email: user.email })
      return reviveUser(JSON.stringify(stored))
    },
    async getUser(id) {
      return userFrom(await client.get(key.user(id)))
    },
    async getUserByEmail(email) {
      const k = emailKey(email)
      return k === null ? null : userFrom(await lua.run(client, lua.USER_BY_EMAIL, [key.email(k)], [p]))
    },
    async getUserByAccount(account) {
      const found = await lua.run(client, lua.RECORD_AND_USER, [key.account(account)], [p])
      return Array.isArray(found) ? reviveUser(String(found[1])) : null
    },
    async updateUser(patch) {
      for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
        const { current, before, next, json } = await userUpdate(ctx, patch)
        const status = await lua.run(
          client,
          lua.UPDATE_USER,
          [key.user(patch.id)],
          [
            current,
            json,
            patch.id,
            emailIndex(ctx, before.email),
            emailIndex(ctx, next.email),
            key.usersByEmail,
            directoryMemberOf(before),
            directoryMemberOf(next),
          ],
        )
        if (status === "missing") throw notFound("User", patch.id)
        if (status === "email") throw conflict("Email", { email: next.email })
        if (status === "ok") return reviveUser(json)
      }
      throw new Error("User update kept conflicting", { cause: { id: patch.id } })
    },
    async deleteUser(userId) {
      for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
        const current = await client.get(key.user(userId))
        if (current === null) return null
        const user = JSON.parse(current) as AdapterUser
        // The back-channel logout indexes its sessions joined, whose names hash values only the records hold.
        const sessions = await lua.run(client, lua.LIST_SET, [key.sessionsOf(userId)], [])
        const idpIndexes = new Set<string>()
        for (const json of Array.isArray(sessions) ? sessions : []) {
          const s = reviveSession(String(json))
          if (typeof s.provider !== "string" || s.provider === "") continue
          if (typeof s.idpSid === "string") idpIndexes.add(key.idpSid(s.provider, s.idpSid))
          if (typeof s.idpSub === "string") idpIndexes.add(key.idpSub(s.provider, s.idpSub))
        }
        const status = await lua.run(
          client,
          lua.DELETE_USER,
          [
            key.user(userId),
            key.accountsOf(userId),
            key.sessionsOf(userId),
            key.authenticatorsOf(userId),
            key.twoFactor(userId),
          ],
          [
            current,
            emailIndex(ctx, user.email),
            userId,
            tokenIndex(ctx, user.email),
            key.usersByEmail,
            directoryMemberOf(user),
            ...idpIndexes,
          ],
        )
        if (status === "missing") return null
        if (status !== "ok") continue
        await durable(ctx, key.user(userId))
        return reviveUser(current)
      }
      throw new Error("User delete kept conflicting", { cause: { id: userId } })
    },
    async linkAccount(account) {
      const stored = withoutUndefinedOrNull(account) as AdapterAccount
      const k = key.account(account)
      const status = await lua.run(
        client,
        lua.CREATE_OWNED,
        [key.user(account.userId), k, key.accountsOf(account.userId)],
        [JSON.stringify(stored)],
      )
      expectOk(status, account.userId, () => conflict("Account", { provider: account.provider }))
      return reviveAccount(JSON.stringify(stored))
    },
    async unlinkAccount(account) {
      const json = await lua.run(client, lua.DELETE_OWNED, [key.account(account)], [p, "user-accounts"])
      return typeof json === "string" ? reviveAccount(json) : null
    },
    async getAccount(providerAccountId, provider) {
      const json = await client.get(key.account({ provider, providerAccountId }))
      return json === null ? null : reviveAccount(json)
    },

    // Refresh-token rotation: the refresh token is compared on the record just read, and the
    // record is written by a Lua compare-and-swap on that exact JSON, so of two writers holding the same old token
    // only one wins. A record changed meanwhile for another reason is read again and compared again.
    async updateAccountTokens(account, patch, opts = {}) {
      const k = key.account(account)
      const expected = opts.expectedRefreshToken
      for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
        const current = await client.get(k)
        if (current === null) return null
        const next = JSON.parse(current) as Record<string, unknown>
        if (expected !== undefined && (next.refresh_token ?? null) !== expected) return null
        for (const column of TOKEN_COLUMNS) {
          const value = patch[column]
          if (value === null) delete next[column]
          else if (value !== undefined) next[column] = value
        }
        const json = JSON.stringify(next)
        const status = await lua.run(client, lua.SWAP_ACCOUNT, [k], [current, json])
        if (status === "missing") return null
        if (status === "ok") return reviveAccount(json)
      }
      throw new Error("Account token update kept conflicting", { cause: { provider: account.provider } })
    },
  }
}

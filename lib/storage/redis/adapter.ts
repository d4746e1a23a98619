// Redis adapter on ioredis: records as JSON under a key prefix, indexes kept in step by Lua scripts, TTLs on expiry.
import { createHash } from "node:crypto"
import type Redis from "ioredis"
import type {
  AccountTokenAdapter,
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "../adapter"
import {
  conflict,
  copyAuthenticator,
  copySession,
  emailKey,
  missingUser,
  newUserId,
  notFound,
} from "../internal/models"
import type { AccountKey } from "../internal/models"
import { TOKEN_COLUMNS } from "../internal/rows"
import * as lua from "./scripts"
import { RedisStore } from "./store"

/** Options of {@link RedisAdapter}. */
export interface RedisAdapterOptions {
  /** Prepended to every key the adapter writes. Default `gatehouse:`. */
  prefix?: string
}

/** How many times an optimistic user update or delete retries when a concurrent write changed the record. */
const MAX_RETRIES = 100

const reviveUser = (json: string): AdapterUser => {
  const user = JSON.parse(json) as AdapterUser
  return { ...user, emailVerified: user.emailVerified ? new Date(user.emailVerified as unknown as string) : null }
}
const reviveSession = (json: string): AdapterSession => copySession(JSON.parse(json) as AdapterSession)
const reviveToken = (json: string): VerificationToken => {
  const token = JSON.parse(json) as VerificationToken
  return { identifier: token.identifier, token: token.token, expires: new Date(token.expires) }
}
const reviveAccount = (json: string): AdapterAccount => JSON.parse(json) as AdapterAccount
const reviveAuthenticator = (json: string): AdapterAuthenticator =>
  copyAuthenticator(JSON.parse(json) as AdapterAuthenticator)

const sha256 = (value: string): string => createHash("sha256").update(value).digest("hex")

const withoutUndefinedOrNull = (value: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null))

/**
 * Creates an adapter on an ioredis client. Keys (all under `prefix`): `user:<id>`, `email:<lower-cased email>`,
 * `account:<provider>:<providerAccountId>` (URI-encoded parts), `session:<token>`, `vt:<identifier>:<token>`,
 * `authenticator:<credentialID>`, and per-user sets `user-accounts:<id>`, `user-sessions:<id>`,
 * `user-authenticators:<id>`, and for OIDC sign-ins the sets `idp-sid:<provider>:<sha256(sid)>` and
 * `idp-sub:<provider>:<sha256(sub)>` (what back-channel logout deletes; members that have gone are pruned when the set
 * is next written). Sessions and verification tokens expire with `PXAT` at their `expires`, so an expired one is
 * simply gone. Emails are stored as given and indexed lower-cased. Multi-key changes run as Lua scripts (atomic);
 * `useVerificationToken` is one `GETDEL` on a key built from identifier and token; `updateAccountTokens` swaps the
 * account record only while it is still the one read. Needs Redis 6.2+; not for Cluster.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisAdapter } from "gatehouse-auth/adapters/redis"
 * const adapter = RedisAdapter(new Redis(process.env.REDIS_URL!), { prefix: "myapp:auth:" })
 * app.use("/auth", ExpressAuth({ adapter, providers: [GitHub] }))
 * ```
 */
export function RedisAdapter(
  client: Redis,
  options: RedisAdapterOptions = {},
): Required<Adapter> & AccountTokenAdapter {
  const p = options.prefix ?? "gatehouse:"
  // ioredis reports a lost connection as an "error" event and reconnects by itself; commands issued meanwhile wait
  // (bounded by the core's adapterTimeout) or reject. This listener keeps an unheard event from being printed as
  // "Unhandled error event" on every reconnect attempt.
  if (client.listenerCount("error") === 0) client.on("error", () => undefined)
  const enc = encodeURIComponent
  const key = {
    user: (id: string) => `${p}user:${id}`,
    email: (k: string) => `${p}email:${k}`,
    account: (a: AccountKey) => `${p}account:${enc(a.provider)}:${enc(a.providerAccountId)}`,
    session: (token: string) => `${p}session:${token}`,
    token: (identifier: string, token: string) => `${p}vt:${enc(identifier)}:${enc(token)}`,
    authenticator: (id: string) => `${p}authenticator:${id}`,
    accountsOf: (id: string) => `${p}user-accounts:${id}`,
    sessionsOf: (id: string) => `${p}user-sessions:${id}`,
    // Back-channel logout indexes: the OP's session id and subject are hashed, so key names never hold them raw.
    idpSid: (provider: string, sid: string) => `${p}idp-sid:${enc(provider)}:${sha256(sid)}`,
    idpSub: (provider: string, sub: string) => `${p}idp-sub:${enc(provider)}:${sha256(sub)}`,
    // Named in place of an index a session does not join; never written.
    idpNone: `${p}idp-none`,
    authenticatorsOf: (id: string) => `${p}user-authenticators:${id}`,
  }
  const emailIndex = (email: unknown): string => {
    const k = emailKey(email)
    return k === null ? "" : key.email(k)
  }
  const pxat = (date: Date): number => new Date(date).getTime()
  const expectOk = (status: unknown, userId: string, onExists: () => Error): void => {
    if (status === "user") throw missingUser(userId)
    if (status === "exists") throw onExists()
  }
  const userFrom = (json: unknown): AdapterUser | null => (typeof json === "string" ? reviveUser(json) : null)

  return {
    store: RedisStore(client, { prefix: `${p}kv:` }),
    async createUser(user) {
      const id = newUserId(user)
      const stored = { ...user, id, emailVerified: user.emailVerified ?? null }
      const index = emailIndex(user.email)
      const keys = index === "" ? [key.user(id)] : [key.user(id), index]
      const status = await lua.run(client, lua.CREATE_USER, keys, [JSON.stringify(stored), id])
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
        const current = await client.get(key.user(patch.id))
        if (current === null) throw notFound("User", patch.id)
        const before = JSON.parse(current) as AdapterUser
        const next = { ...before, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) }
        const json = JSON.stringify(next)
        const status = await lua.run(
          client,
          lua.UPDATE_USER,
          [key.user(patch.id)],
          [current, json, patch.id, emailIndex(before.email), emailIndex(next.email)],
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
        const status = await lua.run(
          client,
          lua.DELETE_USER,
          [key.user(userId), key.accountsOf(userId), key.sessionsOf(userId), key.authenticatorsOf(userId)],
          [current, emailIndex(user.email), userId],
        )
        if (status === "missing") return null
        if (status === "ok") return reviveUser(current)
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
      return typeof json === "string" ? reviveSession(json) : null
    },
    async listSessionsByUserId(userId) {
      const list = await lua.run(client, lua.LIST_SET, [key.sessionsOf(userId)], [])
      return Array.isArray(list) ? list.map((json) => reviveSession(String(json))) : []
    },
    async deleteSessions({ userId, exceptToken }) {
      const keep = exceptToken === undefined ? "" : key.session(exceptToken)
      return Number(await lua.run(client, lua.DELETE_SESSIONS, [key.sessionsOf(userId)], [keep]))
    },
    async deleteSessionsByIdp({ provider, idpSid, idpSub }) {
      if (idpSid === undefined && idpSub === undefined) return []
      const index = idpSid !== undefined ? key.idpSid(provider, idpSid) : key.idpSub(provider, idpSub as string)
      const list = await lua.run(client, lua.DELETE_SESSIONS_BY_IDP, [index], [p, provider, idpSid ?? "", idpSub ?? ""])
      return Array.isArray(list) ? list.map((json) => reviveSession(String(json))) : []
    },

    async createVerificationToken(token) {
      const stored = { identifier: token.identifier, token: token.token, expires: new Date(token.expires) }
      await client.set(key.token(stored.identifier, stored.token), JSON.stringify(stored), "PXAT", pxat(stored.expires))
      return stored
    },
    async useVerificationToken({ identifier, token }) {
      // GETDEL is atomic: of two concurrent calls, exactly one receives the value.
      const json = await client.getdel(key.token(identifier, token))
      if (json === null) return null
      const stored = reviveToken(json)
      return stored.identifier === identifier && stored.token === token ? stored : null
    },

    async getAuthenticator(credentialID) {
      const json = await client.get(key.authenticator(credentialID))
      return json === null ? null : reviveAuthenticator(json)
    },
    async createAuthenticator(authenticator) {
      const stored = copyAuthenticator(authenticator)
      const status = await lua.run(
        client,
        lua.CREATE_OWNED,
        [key.user(stored.userId), key.authenticator(stored.credentialID), key.authenticatorsOf(stored.userId)],
        [JSON.stringify(stored)],
      )
      expectOk(status, stored.userId, () => conflict("Authenticator", { credentialID: stored.credentialID }))
      return copyAuthenticator(stored)
    },
    async listAuthenticatorsByUserId(userId) {
      const list = await lua.run(client, lua.LIST_SET, [key.authenticatorsOf(userId)], [])
      return Array.isArray(list) ? list.map((json) => reviveAuthenticator(String(json))) : []
    },
    async updateAuthenticatorCounter(credentialID, newCounter, opts) {
      if (opts?.expected !== undefined) {
        const swapped = await lua.run(
          client,
          lua.SWAP_COUNTER,
          [key.authenticator(credentialID)],
          [newCounter, opts.expected, new Date().toISOString()],
        )
        return typeof swapped === "string" ? reviveAuthenticator(swapped) : null
      }
      const json = await lua.run(client, lua.UPDATE_COUNTER, [key.authenticator(credentialID)], [newCounter])
      if (typeof json !== "string") throw notFound("Authenticator", credentialID)
      return reviveAuthenticator(json)
    },
    async deleteAuthenticator(credentialID) {
      const json = await lua.run(
        client,
        lua.DELETE_OWNED,
        [key.authenticator(credentialID)],
        [p, "user-authenticators"],
      )
      return typeof json === "string" ? reviveAuthenticator(json) : null
    },
    async updateAuthenticator(credentialID, patch) {
      const flag = (b: boolean): string => (b ? "1" : "")
      const json = await lua.run(
        client,
        lua.PATCH_AUTHENTICATOR,
        [key.authenticator(credentialID)],
        [
          flag(patch.name !== undefined),
          patch.name ?? "",
          flag(patch.name === null),
          flag(patch.lastUsedAt !== undefined),
          patch.lastUsedAt ? new Date(patch.lastUsedAt).toISOString() : "",
        ],
      )
      return typeof json === "string" ? reviveAuthenticator(json) : null
    },
  }
}

export default RedisAdapter

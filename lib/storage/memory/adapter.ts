// In-memory adapter for tests and demos: everything lives in Maps of this process and is lost on exit. The feature
// groups (passwords, passkeys, two-factor) are in features.ts, the audit trail in audit.ts; this file holds users,
// accounts, sessions and verification tokens, and assembles them.
import type {
  AccountTokenAdapter,
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterTwoFactor,
  AdapterUser,
  IdpSessionAdapter,
  VerificationToken,
} from "../adapter"
import {
  userTokenIdentifiers,
  listUsersIn,
  conflict,
  copySession,
  deepCopy,
  emailKey,
  missingUser,
  newUserId,
  notFound,
} from "../internal/models"
import { MemoryStore } from "./store"
import { memoryAuditMethods } from "./audit"
import { accountId, memoryAuthenticatorMethods, memoryPasswordMethods, memoryTwoFactorMethods } from "./features"
import { TOKEN_COLUMNS } from "../internal/rows"
import { withoutPassword } from "../internal/password"

const tokenId = (t: { identifier: string; token: string }): string => JSON.stringify([t.identifier, t.token])

/**
 * Creates an adapter that keeps users, accounts, sessions, verification tokens and authenticators in memory.
 * Every method runs without awaiting anything in between reads and writes, so each call is atomic. Emails are
 * stored as given and matched lower-cased; deleting a user removes its accounts, sessions and authenticators.
 * Values are deep-copied in and out, so callers never share objects with the store.
 *
 * @example
 * ```ts
 * import { MemoryAdapter } from "gatehouse-auth/adapters/memory"
 * app.use("/auth", ExpressAuth({ adapter: MemoryAdapter(), providers: [GitHub] }))
 * ```
 */
export function MemoryAdapter(): Required<Adapter> & IdpSessionAdapter & AccountTokenAdapter {
  // A password row lives among the accounts (`password`/<user id>); only getPasswordAccount answers its hash.
  const users = new Map<string, AdapterUser>()
  const emails = new Map<string, string>()
  const accounts = new Map<string, AdapterAccount>()
  const sessions = new Map<string, AdapterSession>()
  const tokens = new Map<string, VerificationToken>()
  const authenticators = new Map<string, AdapterAuthenticator>()
  const twoFactor = new Map<string, AdapterTwoFactor>()

  const clone = deepCopy
  const userOrNull = (id: string | undefined): AdapterUser | null => {
    const user = id === undefined ? undefined : users.get(id)
    return user ? clone(user) : null
  }
  const requireUser = (userId: string): void => {
    if (!users.has(userId)) throw missingUser(userId)
  }

  return {
    store: MemoryStore(),
    ...memoryAuditMethods(),
    async createUser(user) {
      const id = newUserId(user)
      if (users.has(id)) throw conflict("User id", { id })
      const key = emailKey(user.email)
      if (key !== null && emails.has(key)) throw conflict("Email", { email: user.email })
      const stored: AdapterUser = { ...clone(user), id, emailVerified: user.emailVerified ?? null }
      users.set(id, stored)
      if (key !== null) emails.set(key, id)
      return clone(stored)
    },
    async getUser(id) {
      return userOrNull(id)
    },
    async getUserByEmail(email) {
      const key = emailKey(email)
      return key === null ? null : userOrNull(emails.get(key))
    },
    async getUserByAccount(account) {
      return userOrNull(accounts.get(accountId(account))?.userId)
    },
    async updateUser(patch) {
      const current = users.get(patch.id)
      if (!current) throw notFound("User", patch.id)
      const changes = Object.fromEntries(Object.entries(clone(patch)).filter(([, v]) => v !== undefined))
      const next: AdapterUser = { ...current, ...changes, id: current.id }
      const oldKey = emailKey(current.email)
      const newKey = emailKey(next.email)
      if (newKey !== oldKey) {
        if (newKey !== null && emails.has(newKey)) throw conflict("Email", { email: next.email })
        if (oldKey !== null) emails.delete(oldKey)
        if (newKey !== null) emails.set(newKey, current.id)
      }
      users.set(current.id, next)
      return clone(next)
    },
    async deleteUser(userId) {
      const user = users.get(userId)
      if (!user) return null
      users.delete(userId)
      const key = emailKey(user.email)
      if (key !== null) emails.delete(key)
      for (const [id, a] of accounts) if (a.userId === userId) accounts.delete(id)
      for (const [id, s] of sessions) if (s.userId === userId) sessions.delete(id)
      for (const [id, a] of authenticators) if (a.userId === userId) authenticators.delete(id)
      twoFactor.delete(userId)
      if (key !== null) {
        for (const [id, t] of tokens)
          if (userTokenIdentifiers(key).includes(t.identifier.toLowerCase())) tokens.delete(id)
      }
      return user
    },
    async linkAccount(account) {
      requireUser(account.userId)
      const id = accountId(account)
      if (accounts.has(id)) throw conflict("Account", { provider: account.provider })
      const stored = Object.fromEntries(Object.entries(clone(account)).filter(([, v]) => v !== undefined && v !== null))
      accounts.set(id, stored as AdapterAccount)
      return clone(stored as AdapterAccount)
    },
    async unlinkAccount(account) {
      const id = accountId(account)
      const stored = accounts.get(id)
      if (!stored) return null
      accounts.delete(id)
      return withoutPassword(stored)
    },
    async listUsers(filter) {
      return listUsersIn([...users.values()], filter).map(clone)
    },
    async listAccountsByUserId(userId) {
      return [...accounts.values()].filter((a) => a.userId === userId).map(clone)
    },
    async getAccount(providerAccountId, provider) {
      const stored = accounts.get(accountId({ provider, providerAccountId }))
      return stored ? withoutPassword(clone(stored)) : null
    },
    async updateAccountTokens(key, patch, options = {}) {
      const id = accountId(key)
      const stored = accounts.get(id)
      if (!stored) return null
      const expected = options.expectedRefreshToken
      if (expected !== undefined && (stored.refresh_token ?? null) !== expected) return null
      const next: Record<string, unknown> = { ...stored }
      // The token columns only, as the SQL and Redis adapters write: a patch never moves an account to another owner.
      for (const column of TOKEN_COLUMNS) {
        const value = (patch as Record<string, unknown>)[column]
        if (value === undefined) continue
        if (value === null) delete next[column]
        else next[column] = value
      }
      accounts.set(id, next as AdapterAccount)
      return withoutPassword(clone(next as AdapterAccount))
    },

    async createSession(session) {
      requireUser(session.userId)
      const stored = copySession(session)
      sessions.set(stored.sessionToken, stored)
      return copySession(stored)
    },
    async getSessionAndUser(sessionToken) {
      const session = sessions.get(sessionToken)
      const user = session ? users.get(session.userId) : undefined
      return session && user ? { session: copySession(session), user: clone(user) } : null
    },
    async updateSession(patch) {
      const current = sessions.get(patch.sessionToken)
      if (!current) return null
      if (patch.userId !== undefined) requireUser(patch.userId)
      const next = copySession({
        ...current,
        userId: patch.userId ?? current.userId,
        expires: patch.expires ?? current.expires,
        lastActiveAt: patch.lastActiveAt ?? current.lastActiveAt,
      })
      sessions.set(next.sessionToken, next)
      return copySession(next)
    },
    async deleteSession(sessionToken) {
      const session = sessions.get(sessionToken)
      if (!session) return null
      sessions.delete(sessionToken)
      return session
    },
    async listSessionsByUserId(userId) {
      return [...sessions.values()].filter((s) => s.userId === userId).map(copySession)
    },
    async deleteSessions({ userId, exceptToken }) {
      let count = 0
      for (const [token, s] of sessions) {
        if (s.userId !== userId || token === exceptToken) continue
        sessions.delete(token)
        count++
      }
      return count
    },
    async deleteSessionsByIdp({ provider, idpSid, idpSub }) {
      const deleted: AdapterSession[] = []
      if (idpSid === undefined && idpSub === undefined) return deleted
      for (const [token, s] of sessions) {
        if (s.provider !== provider) continue
        if (idpSid !== undefined && s.idpSid !== idpSid) continue
        if (idpSub !== undefined && s.idpSub !== idpSub) continue
        sessions.delete(token)
        deleted.push(copySession(s))
      }
      return deleted
    },

    async createVerificationToken(token) {
      const stored = { identifier: token.identifier, token: token.token, expires: new Date(token.expires) }
      tokens.set(tokenId(stored), stored)
      return { ...stored, expires: new Date(stored.expires) }
    },
    async useVerificationToken(params) {
      const id = tokenId(params)
      const stored = tokens.get(id)
      if (!stored) return null
      tokens.delete(id)
      return stored
    },
    ...memoryPasswordMethods({ accounts, requireUser }),
    ...memoryAuthenticatorMethods({ authenticators, requireUser }),
    ...memoryTwoFactorMethods({ twoFactor }),
  }
}

export default MemoryAdapter

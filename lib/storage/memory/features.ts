// The memory adapter's feature groups (passwords, passkeys, two-factor), on the Maps the adapter owns: deleting a user
// in adapter.ts clears its rows here too.
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterTwoFactor,
  AuthenticatorAdapter,
  PasswordAdapter,
  TwoFactorAdapter,
} from "../adapter"
import { copyAuthenticator, copyTwoFactor, deepCopy, notFound, conflict, patchedTwoFactor } from "../internal/models"
import type { AccountKey } from "../internal/models"
import { PASSWORD_PROVIDER, passwordAccount, passwordCondition } from "../internal/password"

/** The key of an account in the memory adapter's account Map: its provider and provider account id. */
export const accountId = (a: AccountKey): string => JSON.stringify([a.provider, a.providerAccountId])

/** Throws when no user has the id (a row must belong to an existing user). */
type RequireUser = (userId: string) => void

/** The password methods on the adapter's accounts (a password row is the account `password`/<user id>). */
export function memoryPasswordMethods(tables: {
  accounts: Map<string, AdapterAccount>
  requireUser: RequireUser
}): PasswordAdapter {
  const { accounts, requireUser } = tables
  return {
    async getPasswordAccount(userId) {
      const stored = accounts.get(accountId({ provider: PASSWORD_PROVIDER, providerAccountId: userId }))
      if (!stored || typeof stored.passwordHash !== "string") return null
      return passwordAccount(userId, stored.passwordHash, stored.passwordChangedAt)
    },
    // Synchronous between the read and the write: the compare-and-swap is atomic.
    async setPasswordHash(userId, passwordHash, options = {}) {
      requireUser(userId)
      const id = accountId({ provider: PASSWORD_PROVIDER, providerAccountId: userId })
      const stored = accounts.get(id)
      const current = typeof stored?.passwordHash === "string" ? stored.passwordHash : null
      if (!passwordCondition(current, options.expected)) return null
      const changedAt = options.changedAt ? new Date(options.changedAt) : (stored?.passwordChangedAt ?? null)
      const row = passwordAccount(userId, passwordHash, changedAt)
      accounts.set(id, deepCopy(row))
      return deepCopy(row)
    },
  }
}

/** The passkey (authenticator) methods on the adapter's authenticators, by credential id. */
export function memoryAuthenticatorMethods(tables: {
  authenticators: Map<string, AdapterAuthenticator>
  requireUser: RequireUser
}): AuthenticatorAdapter {
  const { authenticators, requireUser } = tables
  return {
    async getAuthenticator(credentialID) {
      const stored = authenticators.get(credentialID)
      return stored ? copyAuthenticator(stored) : null
    },
    async createAuthenticator(authenticator) {
      requireUser(authenticator.userId)
      if (authenticators.has(authenticator.credentialID)) {
        throw conflict("Authenticator", { credentialID: authenticator.credentialID })
      }
      const stored = copyAuthenticator(authenticator)
      authenticators.set(stored.credentialID, stored)
      return copyAuthenticator(stored)
    },
    async listAuthenticatorsByUserId(userId) {
      return [...authenticators.values()].filter((a) => a.userId === userId).map(copyAuthenticator)
    },
    async updateAuthenticatorCounter(credentialID, newCounter, opts) {
      const stored = authenticators.get(credentialID)
      if (opts?.expected !== undefined) {
        if (!stored || stored.counter !== opts.expected || newCounter < stored.counter) return null
        stored.lastUsedAt = new Date()
      } else if (!stored) throw notFound("Authenticator", credentialID)
      stored.counter = newCounter
      return copyAuthenticator(stored)
    },
    async deleteAuthenticator(credentialID) {
      const stored = authenticators.get(credentialID)
      if (!stored) return null
      authenticators.delete(credentialID)
      return copyAuthenticator(stored)
    },
    async updateAuthenticator(credentialID, patch) {
      const stored = authenticators.get(credentialID)
      if (!stored) return null
      if (patch.name !== undefined) stored.name = patch.name
      if (patch.lastUsedAt !== undefined) stored.lastUsedAt = patch.lastUsedAt && new Date(patch.lastUsedAt)
      return copyAuthenticator(stored)
    },
  }
}

/** The two-factor methods on the adapter's two-factor rows, by user id; the update is a compare-and-swap on `version`. */
export function memoryTwoFactorMethods(tables: { twoFactor: Map<string, AdapterTwoFactor> }): TwoFactorAdapter {
  const { twoFactor } = tables
  return {
    async getTwoFactor(userId) {
      const stored = twoFactor.get(userId)
      return stored ? copyTwoFactor(stored) : null
    },
    async upsertTwoFactor(row) {
      const stored = { ...copyTwoFactor(row), version: 0 }
      twoFactor.set(stored.userId, stored)
      return copyTwoFactor(stored)
    },
    async updateTwoFactor(userId, patch, { expectedVersion }) {
      const stored = twoFactor.get(userId)
      if (!stored || stored.version !== expectedVersion) return null
      const next = patchedTwoFactor(stored, patch)
      twoFactor.set(userId, next)
      return copyTwoFactor(next)
    },
    async deleteTwoFactor(userId) {
      const stored = twoFactor.get(userId)
      if (!stored) return null
      twoFactor.delete(userId)
      return copyTwoFactor(stored)
    },
  }
}

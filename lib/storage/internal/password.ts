// The password row every driver stores: its fixed fields, how a stored record becomes an answer, and how generic
// account answers leave the hash out.
import type { AdapterAccount, AdapterPasswordAccount } from "../adapter"
import { toDateOrNull } from "./models"

/** The provider id and account type of a password row. */
export const PASSWORD_PROVIDER = "password"

/** The fields of a password row that only `getPasswordAccount` answers. */
const PASSWORD_FIELDS = ["passwordHash", "passwordChangedAt", "password_hash", "password_changed_at"] as const

/** The password row of `userId` as the contract answers it. */
export function passwordAccount(userId: string, passwordHash: string, changedAt: unknown): AdapterPasswordAccount {
  return {
    userId,
    type: "password",
    provider: "password",
    providerAccountId: userId,
    passwordHash,
    passwordChangedAt: toDateOrNull(changedAt),
  }
}

/** An account answer without the password fields: no generic listing carries a hash. */
export function withoutPassword<A extends AdapterAccount>(account: A): A {
  if (!PASSWORD_FIELDS.some((field) => field in account)) return account
  const copy: Record<string, unknown> = { ...account }
  for (const field of PASSWORD_FIELDS) delete copy[field]
  return copy as A
}

/**
 * Whether a stored hash meets the condition of `setPasswordHash`: `expected` absent, anything; `null`, no row; a
 * string, a row holding exactly that hash.
 */
export function passwordCondition(stored: string | null, expected: string | null | undefined): boolean {
  if (expected === undefined) return true
  if (expected === null) return stored === null
  return stored !== null && stored === expected
}

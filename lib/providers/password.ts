/**
 * The Password provider: email and password accounts stored with the adapter (sign-up, email verification, sign-in,
 * forgot/reset, change, set). Hashing is `node:crypto` scrypt in PHC strings; see `docs/guide/passwords.md`.
 */
import { InvalidConfig } from "../errors"
import { DEFAULT_SCRYPT, scryptHash, scryptVerify, type ScryptParams } from "../password/hash"
import { defaultBlocklist, normalizePassword } from "../password/policy"
import type { PasswordConfig, PasswordOptions } from "../password/types"

export type {
  AccountExistsParams,
  PasswordChangedParams,
  PasswordConfig,
  PasswordOptions,
  PasswordResetParams,
  PasswordVerificationParams,
  PasswordVerifyInput,
} from "../password/types"
export type { BreachCheckOptions } from "../password/breach"
export type { ScryptParams } from "../password/hash"

/**
 * Hashes a password as the provider stores it: NFKC, then scrypt (default N = 2^17, r = 8, p = 1) in a PHC string.
 * For seeding, imports and tests.
 *
 * @example
 * ```ts
 * const hash = await hashPassword("correct horse battery staple")
 * await adapter.setPasswordHash(user.id, hash)
 * ```
 */
export async function hashPassword(
  password: string,
  options: { scrypt?: Partial<ScryptParams> } = {},
): Promise<string> {
  const normalized = normalizePassword(password)
  if (normalized === null) throw new InvalidConfig("hashPassword needs a non-empty string")
  return scryptHash(normalized, { ...DEFAULT_SCRYPT, ...options.scrypt })
}

/**
 * Verifies a password against a stored `$scrypt$` PHC string (the built-in format only), in constant time.
 *
 * @example
 * ```ts
 * await verifyPassword("correct horse battery staple", hash) // true
 * ```
 */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const normalized = normalizePassword(password)
  return normalized !== null && typeof hash === "string" && scryptVerify(normalized, hash)
}

/**
 * Creates the Password provider. Its id is always `password`; at most one per config; it needs an adapter with
 * `getPasswordAccount` and `setPasswordHash` (every shipped adapter has them).
 *
 * @example
 * ```ts
 * import Password from "gatehouse-auth/providers/password"
 * Password({ server: process.env.SMTP_URL, from: "Example <no-reply@example.com>" })
 * ```
 */
export function Password(options: PasswordOptions = {}): PasswordConfig {
  if (options !== null && typeof options === "object" && "id" in options) {
    throw new InvalidConfig("The Password provider's id is always `password`: remove the `id` option")
  }
  return { id: "password", type: "password", name: "Password", options }
}

/** The default blocklist (the account's address or its local part), to call from your own `blocklist`. */
Password.defaultBlocklist = defaultBlocklist

export default Password

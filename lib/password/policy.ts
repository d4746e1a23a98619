/**
 * The password policy of NIST SP 800-63B: NFKC normalisation, length in code points, a blocklist. No composition
 * rules, no trimming, no truncation.
 */

/** Why a password was refused. */
export type PasswordPolicyCode =
  "missing" | "too_short" | "too_long" | "blocklisted" | "breached" | "breach_check_failed"

/**
 * A typed password, normalised with Unicode NFKC (nothing else): `null` when it is missing, not a string, or empty.
 *
 * @example
 * ```ts
 * normalizePassword("ｈｕｎｔｅｒ２２ｘ") // "hunter22x"
 * ```
 */
export function normalizePassword(input: unknown): string | null {
  if (typeof input !== "string" || input === "") return null
  return input.normalize("NFKC")
}

/** The length of a string in Unicode code points (an emoji counts 1). */
export const codePointLength = (value: string): number => [...value].length

/** The length rule: `too_short`, `too_long`, or `null` when the normalised password fits. */
export function lengthCode(normalized: string, minLength: number, maxLength: number): PasswordPolicyCode | null {
  const length = codePointLength(normalized)
  if (length < minLength) return "too_short"
  if (length > maxLength) return "too_long"
  return null
}

/**
 * The default blocklist: the password equals, ignoring case, the account's email address or its local part.
 *
 * @example
 * ```ts
 * defaultBlocklist("Ada@Example.com", { email: "ada@example.com" }) // true
 * ```
 */
export function defaultBlocklist(password: string, user: { email?: string | null; name?: string | null }): boolean {
  const email = user.email?.toLowerCase()
  if (!email) return false
  const candidate = password.toLowerCase()
  const at = email.lastIndexOf("@")
  return candidate === email || (at > 0 && candidate === email.slice(0, at))
}

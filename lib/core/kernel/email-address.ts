/** Email address normalisation for magic links: one mailbox, never two recipients, no parser differentials. */
import { EmailSignInError } from "../../errors"

// After NFKC and lower-casing, the address must be dot-atom@domain with none of the characters mail parsers treat
// specially (quotes, angle brackets, commas, semicolons, parentheses, backslashes, whitespace, control characters),
// nor invisible format characters (U+200B zero-width space, U+202E right-to-left override, ...) that would make two
// different addresses look the same.
const forbidden = /[\s"'<>(),;:\\[\]\p{Cc}\p{Cf}\p{Z}]/u
const domainPattern = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * The default `normalizeIdentifier`: Unicode NFKC first (so a fullwidth `＠` becomes `@` before it is checked), then
 * lower-case and trim; anything after a `,` in the domain is cut (a comma-joined second recipient is dropped); then
 * the address must have exactly one `@`, a non-empty local part without special characters, and an ASCII domain.
 * Throws `EmailSignInError` otherwise.
 *
 * @example
 * ```ts
 * normalizeEmail(" Ada@Example.COM ") // "ada@example.com"
 * normalizeEmail("a@example.com,evil.com") // "a@example.com"
 * ```
 */
export function normalizeEmail(input: unknown): string {
  if (typeof input !== "string" || input.trim() === "") throw new EmailSignInError("Missing email address")
  const value = input.normalize("NFKC").toLowerCase().trim()
  const parts = value.split("@")
  if (parts.length !== 2 || value.includes('"')) throw new EmailSignInError("Invalid email address format.")
  const local = parts[0]!
  const domain = parts[1]!.split(",")[0]!
  if (!local || !domain || local.length > 64 || domain.length > 253) {
    throw new EmailSignInError("Invalid email address format.")
  }
  if (forbidden.test(local) || forbidden.test(domain) || !domainPattern.test(domain)) {
    throw new EmailSignInError("Invalid email address format.")
  }
  if (local.startsWith(".") || local.endsWith(".") || local.includes("..")) {
    throw new EmailSignInError("Invalid email address format.")
  }
  return `${local}@${domain}`
}

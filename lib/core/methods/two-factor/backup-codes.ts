/**
 * Backup codes: 10 codes of 10 Crockford base32 characters (50 bits each), shown once as `xxxxx-xxxxx`, stored only
 * as `base64url(HMAC-SHA256(K, userId + "\0" + code))` with K derived from the config's secret.
 */
import { createHmac, hkdfSync, randomInt } from "node:crypto"
import { constantTimeEqual } from "../../kernel/secrets"

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
/** How many codes a user gets. */
export const BACKUP_CODE_COUNT = 10

const keys = new Map<string, Buffer>()
function keyOf(secret: string): Buffer {
  let key = keys.get(secret)
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secret, "gatehouse.backup-code", "Gatehouse backup code", 32))
    keys.set(secret, key)
  }
  return key
}

/**
 * The keyed hash a code is stored as (the first secret's key unless `secret` is given).
 *
 * @example
 * ```ts
 * hashBackupCode("abcde12345", "user-1", config.secret[0])
 * ```
 */
export function hashBackupCode(code: string, userId: string, secret: string): string {
  return createHmac("sha256", keyOf(secret)).update(`${userId}\0${code}`).digest("base64url")
}

/**
 * Ten new codes: what the user sees (`xxxxx-xxxxx`) and what is stored (their keyed hashes).
 *
 * @example
 * ```ts
 * const { codes, hashes } = newBackupCodes("user-1", config.secret)
 * ```
 */
export function newBackupCodes(userId: string, secrets: readonly string[]): { codes: string[]; hashes: string[] } {
  const codes = new Set<string>()
  while (codes.size < BACKUP_CODE_COUNT) {
    let code = ""
    for (let i = 0; i < 10; i++) code += ALPHABET[randomInt(32)]
    codes.add(code)
  }
  const list = [...codes]
  return {
    codes: list.map((code) => `${code.slice(0, 5)}-${code.slice(5)}`),
    hashes: list.map((code) => hashBackupCode(code, userId, secrets[0]!)),
  }
}

/**
 * A submitted code in canonical form: lower case, spaces and `-` removed, `i`/`l` read as `1` and `o` as `0`; `null`
 * unless exactly 10 alphabet characters remain.
 *
 * @example
 * ```ts
 * normalizeBackupCode("ABCDE-FGHIJ") // "abcdefgh1j"
 * ```
 */
export function normalizeBackupCode(input: unknown): string | null {
  if (typeof input !== "string" || input.length > 64) return null
  const code = input
    .toLowerCase()
    .replace(/[\s-]+/g, "")
    .replace(/[il]/g, "1")
    .replace(/o/g, "0")
  if (code.length !== 10) return null
  for (const char of code) if (!ALPHABET.includes(char)) return null
  return code
}

/**
 * The index of the stored hash `code` matches under any of `secrets`, or -1. Every entry is compared (no early exit);
 * used entries (`null`) never match.
 *
 * @example
 * ```ts
 * const index = matchBackupCode(row.backupCodes, "abcde12345", row.userId, config.secret)
 * ```
 */
export function matchBackupCode(
  stored: ReadonlyArray<string | null>,
  code: string,
  userId: string,
  secrets: readonly string[],
): number {
  const candidates = secrets.map((secret) => hashBackupCode(code, userId, secret))
  let found = -1
  stored.forEach((entry, index) => {
    const value = typeof entry === "string" ? entry : ""
    for (const candidate of candidates) {
      const same = constantTimeEqual(value, candidate)
      if (same && found === -1) found = index
    }
  })
  return found
}

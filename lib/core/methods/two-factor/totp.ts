/**
 * TOTP (RFC 6238 over RFC 4226): HMAC-SHA-1, 6 digits, 30-second steps from T0 = 0, and a check of a submitted code
 * against the steps now−1, now and now+1 in constant time.
 */
import { createHmac } from "node:crypto"
import { constantTimeEqual } from "../../kernel/secrets"

/** Seconds per time step. */
export const TOTP_PERIOD = 30
/** Digits of a code. */
export const TOTP_DIGITS = 6

/**
 * The time step of `unixSeconds`: `floor(unixSeconds / 30)`.
 *
 * @example
 * ```ts
 * totpStep(59) // 1
 * ```
 */
export function totpStep(unixSeconds: number): number {
  return Math.floor(unixSeconds / TOTP_PERIOD)
}

/**
 * The HOTP value of `counter` under `key` (RFC 4226 section 5.3: dynamic truncation), as a zero-padded decimal.
 *
 * @example
 * ```ts
 * hotp(Buffer.from("12345678901234567890"), 1) // "287082"
 * ```
 */
export function hotp(key: Uint8Array, counter: number, digits = TOTP_DIGITS): string {
  const message = Buffer.alloc(8)
  message.writeBigUInt64BE(BigInt(counter))
  const mac = createHmac("sha1", key).update(message).digest()
  const offset = mac[mac.length - 1]! & 0x0f
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!
  return String(binary % 10 ** digits).padStart(digits, "0")
}

/**
 * The code of `key` at `unixSeconds`.
 *
 * @example
 * ```ts
 * totpCode(seed, 1111111109) // "081804"
 * ```
 */
export function totpCode(key: Uint8Array, unixSeconds: number): string {
  return hotp(key, totpStep(unixSeconds))
}

/**
 * A submitted code as digits: spaces removed; `null` when what is left is not exactly 6 digits (a wrong code).
 *
 * @example
 * ```ts
 * normalizeTotpInput("123 456") // "123456"
 * ```
 */
export function normalizeTotpInput(input: unknown): string | null {
  if (typeof input !== "string" || input.length > 32) return null
  const digits = input.replace(/\s+/g, "")
  return /^[0-9]{6}$/.test(digits) ? digits : null
}

/**
 * The step among now−1, now, now+1 whose code equals `code`, or `null`. All three are computed and compared in
 * constant time, with no early exit, so the time taken does not tell which step (if any) matched.
 *
 * @example
 * ```ts
 * matchTotpStep(key, "287082", 59) // 1
 * ```
 */
export function matchTotpStep(key: Uint8Array, code: string, unixSeconds: number): number | null {
  const now = totpStep(unixSeconds)
  let matched: number | null = null
  for (const step of [now - 1, now, now + 1]) {
    const same = constantTimeEqual(hotp(key, step), code)
    if (same && matched === null) matched = step
  }
  return matched
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

/**
 * RFC 4648 base32, upper case, without padding.
 *
 * @example
 * ```ts
 * base32Encode(Buffer.from("12345678901234567890")) // "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
 * ```
 */
export function base32Encode(bytes: Uint8Array): string {
  let out = ""
  let bits = 0
  let value = 0
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31]
  return out
}

/**
 * Decodes RFC 4648 base32 (upper or lower case, padding optional); throws a `TypeError` on another character.
 *
 * @example
 * ```ts
 * base32Decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ").toString() // "12345678901234567890"
 * ```
 */
export function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, "").toUpperCase()
  const out: number[] = []
  let bits = 0
  let value = 0
  for (const char of clean) {
    const index = BASE32.indexOf(char)
    if (index === -1) throw Object.assign(new TypeError("Invalid base32"), { code: "ERR_INVALID_ARG_VALUE" })
    value = (value << 5) | index
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

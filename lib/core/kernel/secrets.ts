/**
 * The security primitives the core shares: constant-time comparison, the Auth.js-compatible keyed hash, and random
 * tokens. CSRF and email tokens use these; new code (rate limits, sign-out state) should too, never a copy.
 */
import { hash, randomBytes, timingSafeEqual } from "node:crypto"

/**
 * Whether two strings are equal, in time independent of where they differ (lengths may leak; values do not).
 *
 * @example
 * ```ts
 * constantTimeEqual(bodyToken, cookieToken) // true only for the same string
 * ```
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * The keyed hash Auth.js uses for CSRF cookies and email tokens: `sha256(value + secret)` as hex. Wire-compatible by
 * design (a plain HMAC would be the modern choice); kept in one place so it is never re-implemented.
 *
 * @example
 * ```ts
 * keyedHash(token, secret[0]) // 64 hex characters
 * ```
 */
export function keyedHash(value: string, secret: string): string {
  // One-shot `crypto.hash` (Node >= 20.12): no Hash object per call, which was a measurable share of an anonymous
  // request that mints a CSRF token (issue 16).
  return hash("sha256", `${value}${secret}`, "hex")
}

// Random bytes are drawn from the CSPRNG 4 KB at a time and handed out once each (as Node's own `randomUUID` does):
// one `randomBytes` call per token was a measurable share of an anonymous request (issue 16). Used bytes are zeroed.
const POOL_SIZE = 4096
const MAX_POOLED = 256
let pool = Buffer.alloc(0)
let offset = 0

/**
 * A random token: `bytes` random bytes as hex (32 bytes, 64 characters, by default).
 *
 * @example
 * ```ts
 * randomToken() // "9f86d081884c7d65…"
 * ```
 */
export function randomToken(bytes = 32): string {
  if (!Number.isInteger(bytes) || bytes <= 0 || bytes > MAX_POOLED) return randomBytes(bytes).toString("hex")
  if (offset + bytes > pool.length) {
    pool = randomBytes(POOL_SIZE)
    offset = 0
  }
  const token = pool.toString("hex", offset, offset + bytes)
  pool.fill(0, offset, offset + bytes)
  offset += bytes
  return token
}

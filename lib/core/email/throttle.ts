/**
 * The per-address throttle of sign-in emails (EM-13): at most `max` sends per `windowMs` for one address. In memory
 * here, behind a small interface a shared rate-limiting store can implement later.
 */
import { createHash } from "node:crypto"
import type { Awaitable } from "../types"

/** Decides whether one more email may be sent for `key`; counts the attempt when it may. */
export interface EmailSendThrottle {
  allow(key: string): Awaitable<boolean>
}

/** Default: 3 emails per address per 10 minutes. */
export const EMAIL_SEND_LIMIT = Object.freeze({ max: 3, windowMs: 10 * 60 * 1000 })

/** Above this many tracked keys, expired ones are swept on the next call. */
const SWEEP_AT = 10_000

/**
 * A throttle kept in this process's memory. Keys are hashed, so the addresses themselves are not retained.
 *
 * @example
 * ```ts
 * const throttle = createMemorySendThrottle()
 * await throttle.allow("nodemailer:ada@example.com") // true, three times in ten minutes
 * ```
 */
export function createMemorySendThrottle(
  limit: { max: number; windowMs: number } = EMAIL_SEND_LIMIT,
): EmailSendThrottle {
  const sends = new Map<string, number[]>()
  const live = (times: number[], now: number) => times.filter((t) => now - t < limit.windowMs)
  return {
    allow(key) {
      const now = Date.now()
      if (sends.size > SWEEP_AT) {
        for (const [k, times] of sends) if (live(times, now).length === 0) sends.delete(k)
      }
      const id = createHash("sha256").update(key).digest("base64url")
      const recent = live(sends.get(id) ?? [], now)
      if (recent.length >= limit.max) {
        sends.set(id, recent)
        return false
      }
      recent.push(now)
      sends.set(id, recent)
      return true
    },
  }
}

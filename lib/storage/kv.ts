/**
 * The key-value store contract: a few atomic operations on short-lived string values, shared by revocation
 * (session watermarks, back-channel logout), replay guards and rate limits. Every implementation expires entries by
 * their TTL; an expired entry reads as absent.
 */

/** A small key-value store with expiry. Keys are at most 512 characters; TTLs are seconds (> 0). */
export interface KeyValueStore {
  /** The values of `keys`, aligned with them: a string, or `null` when absent or expired. One round trip. */
  get(keys: readonly string[]): Promise<Array<string | null>>
  /** Stores `value` under `key` for `ttlSeconds`, replacing what was there. */
  set(key: string, value: string, ttlSeconds: number): Promise<void>
  /**
   * Stores `max(current, value)` (a safe integer) under `key` and resolves to the stored number. The entry lives at
   * least `ttlSeconds` from now: a smaller value never shortens the life of a larger one. A live non-number is replaced.
   */
  setMax(key: string, value: number, ttlSeconds: number): Promise<number>
  /** Creates `key` for `ttlSeconds` if it is absent or expired: `true` for the one caller that created it. */
  consume(key: string, ttlSeconds: number): Promise<boolean>
}

/** The longest key any store accepts. */
export const MAX_KEY_LENGTH = 512

function invalid(message: string): TypeError {
  return Object.assign(new TypeError(message), { code: "ERR_INVALID_ARG_VALUE" })
}

/** Checks a key: a non-empty string of at most {@link MAX_KEY_LENGTH} characters. A bad key is a TypeError. */
export function checkKey(key: unknown): string {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH) throw invalid("Invalid store key")
  return key
}

/** Checks a TTL in seconds and returns it in whole milliseconds (at least 1). */
export function ttlMs(ttlSeconds: unknown): number {
  if (typeof ttlSeconds !== "number" || !Number.isFinite(ttlSeconds) || ttlSeconds <= 0) {
    throw invalid("Invalid store TTL")
  }
  return Math.max(1, Math.ceil(ttlSeconds * 1000))
}

/** Checks a `setMax` value: a safe integer. */
export function checkMaxValue(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw invalid("Invalid store number")
  return value
}

/** Checks a stored value: a string. */
export function checkValue(value: unknown): string {
  if (typeof value !== "string") throw invalid("Invalid store value")
  return value
}

/** Parses a stored value as the integer `setMax` wrote, or `null` when it is not one. */
export function storedInteger(value: string | null | undefined): number | null {
  if (value === null || value === undefined || !/^-?\d{1,16}$/.test(value)) return null
  const n = Number(value)
  return Number.isSafeInteger(n) ? n : null
}

/** One hit on a fixed window: the hits counted so far in it (this one included) and the milliseconds it has left. */
export interface WindowHit {
  count: number
  resetMs: number
}

/**
 * Fixed-window counters for rate limits. Every shipped store implements it next to {@link KeyValueStore}; any object
 * with these two methods can be passed as `rateLimit.store`.
 */
export interface RateLimitStore {
  /**
   * Counts one hit on `key` atomically. The first hit opens a window of `windowSeconds`; later hits in it only count
   * (they never move its end). After the window, the next hit opens a new one. Concurrent callers, in any process
   * sharing the store, each see a distinct count.
   */
  hit(key: string, windowSeconds: number): Promise<WindowHit>
  /** Forgets the window of `key` (a success resets a failure counter). */
  reset(key: string): Promise<void>
}

/** A window hit from a stored count and expiry (epoch ms), never reporting less than 1 ms left. */
export function windowHit(count: number, expiresAt: number, now: number): WindowHit {
  return { count, resetMs: Math.max(1, expiresAt - now) }
}

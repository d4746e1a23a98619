/** A bounded cache of decrypted token payloads keyed by the exact token, so a hot path skips the cryptography. */

/** Entries kept by default: enough for the sessions a busy process sees in a short while. */
export const DEFAULT_PAYLOAD_CACHE_ENTRIES = 1000

export interface PayloadCache<V> {
  /** The value kept for `token`, if its `exp` is still after `nowSeconds`; an expired entry is dropped. */
  get(token: string, nowSeconds: number): V | undefined
  /** Keeps `value` for `token` until `exp` (seconds); nothing is kept without a numeric `exp`. */
  set(token: string, value: V, exp: unknown): void
  clear(): void
}

/** Characters of a token's end that key its slot: 22 base64url characters are 132 bits of a JWE's tag. */
const SLOT_LENGTH = 22

const slotOf = (token: string): string => (token.length <= SLOT_LENGTH ? token : token.slice(-SLOT_LENGTH))

/**
 * Creates a cache of at most `maxEntries` entries; when full, the oldest entry goes. It never answers past an entry's
 * `exp`, so a cached payload expires exactly when its token would stop decoding (earlier, by the clock tolerance).
 *
 * @example
 * ```ts
 * const cache = createPayloadCache<JWT>()
 * cache.set(token, payload, payload.exp)
 * cache.get(token, Math.floor(Date.now() / 1000)) // payload, until its exp
 * ```
 */
export function createPayloadCache<V>(maxEntries = DEFAULT_PAYLOAD_CACHE_ENTRIES): PayloadCache<V> {
  // Keyed by the token's last characters (of a JWE, its authentication tag), the whole token kept and compared: a Map
  // key is hashed over all its characters, and every request brings the token as a new string. Two tokens with the same
  // tail share one slot: the later one takes it, and the other is decoded again (never answered from the wrong entry).
  const entries = new Map<string, { token: string; value: V; exp: number }>()
  return {
    get(token, nowSeconds) {
      const slot = slotOf(token)
      const entry = entries.get(slot)
      if (entry === undefined || entry.token !== token) return undefined
      if (entry.exp <= nowSeconds) {
        entries.delete(slot)
        return undefined
      }
      return entry.value
    },
    set(token, value, exp) {
      if (typeof exp !== "number" || !Number.isFinite(exp)) return
      const slot = slotOf(token)
      if (entries.size >= maxEntries && !entries.has(slot)) {
        const oldest = entries.keys().next().value
        if (oldest !== undefined) entries.delete(oldest)
      }
      entries.set(slot, { token, value, exp })
    },
    clear() {
      entries.clear()
    },
  }
}

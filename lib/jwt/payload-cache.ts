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
  const entries = new Map<string, { value: V; exp: number }>()
  return {
    get(token, nowSeconds) {
      const entry = entries.get(token)
      if (!entry) return undefined
      if (entry.exp <= nowSeconds) {
        entries.delete(token)
        return undefined
      }
      return entry.value
    },
    set(token, value, exp) {
      if (typeof exp !== "number" || !Number.isFinite(exp)) return
      if (entries.size >= maxEntries && !entries.has(token)) {
        const oldest = entries.keys().next().value
        if (oldest !== undefined) entries.delete(oldest)
      }
      entries.set(token, { value, exp })
    },
    clear() {
      entries.clear()
    },
  }
}

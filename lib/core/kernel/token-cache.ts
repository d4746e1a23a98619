/** A small cache of decrypted session payloads keyed by the exact cookie value, so hot routes skip the crypto. */
import { createPayloadCache, DEFAULT_PAYLOAD_CACHE_ENTRIES } from "../../jwt/payload-cache"
import type { JWT } from "./types"

export interface SessionCache {
  get(cookieValue: string, nowSeconds: number): JWT | undefined
  set(cookieValue: string, payload: JWT): void
  clear(): void
}

/**
 * Creates a bounded cache. Entries are returned only before their `exp`; the oldest entry goes when full.
 *
 * @example
 * ```ts
 * const cache = createSessionCache()
 * cache.set(cookie, payload)
 * cache.get(cookie, Math.floor(Date.now() / 1000))
 * ```
 */
export function createSessionCache(maxEntries = DEFAULT_PAYLOAD_CACHE_ENTRIES): SessionCache {
  const entries = createPayloadCache<JWT>(maxEntries)
  return {
    get: (cookieValue, nowSeconds) => entries.get(cookieValue, nowSeconds),
    // Frozen: every read of this cookie shares the object, and the callbacks get copies of it.
    set: (cookieValue, payload) => entries.set(cookieValue, Object.freeze({ ...payload }), payload.exp),
    clear: () => entries.clear(),
  }
}

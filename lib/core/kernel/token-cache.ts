/** A small cache of decrypted session payloads keyed by the exact cookie value, so hot routes skip the crypto. */
import type { JWT } from "../kernel/types"

const MAX_ENTRIES = 1000

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
export function createSessionCache(maxEntries = MAX_ENTRIES): SessionCache {
  const entries = new Map<string, JWT>()
  return {
    get(cookieValue, nowSeconds) {
      const payload = entries.get(cookieValue)
      if (!payload) return undefined
      if (typeof payload.exp !== "number" || payload.exp <= nowSeconds) {
        entries.delete(cookieValue)
        return undefined
      }
      return payload
    },
    set(cookieValue, payload) {
      if (typeof payload.exp !== "number") return
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value
        if (oldest !== undefined) entries.delete(oldest)
      }
      entries.set(cookieValue, Object.freeze({ ...payload }))
    },
    clear() {
      entries.clear()
    },
  }
}

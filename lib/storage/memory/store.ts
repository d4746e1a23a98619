// The in-process key-value store: a Map with expiry, swept as it fills and capped; it does not cross processes.
import type { KeyValueStore, RateLimitStore } from "../kv"
import { checkKey, checkMaxValue, checkValue, storedInteger, ttlMs, windowHit } from "../kv"

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** The most entries kept; when full after a sweep, the oldest written go first. Default 100,000. */
  maxEntries?: number
  /**
   * Called once, on the first write, when `NODE_ENV` is `production`: `"memory-store-single-process"`. Default: a
   * line on stderr. Gatehouse passes its logger's `warn`.
   */
  warn?: (code: "memory-store-single-process") => void
  /** Whether to warn on the first write. Default: `process.env.NODE_ENV === "production"`. */
  production?: boolean
}

/** Whether `NODE_ENV` is `production`; a runtime that refuses the read (Deno, scoped `--allow-env`) means no. */
function productionEnv(): boolean {
  try {
    return process.env.NODE_ENV === "production"
  } catch {
    return false
  }
}

interface Entry {
  value: string
  expiresAt: number
}

/**
 * Creates a store in this process's memory. Every operation runs without awaiting in between, so each is atomic
 * within the process; nothing is shared with other processes, so revocations, replay guards and rate limits seen by
 * one instance are unknown to the others. Use the adapter's store (PostgreSQL, SQLite, Redis) for several instances.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "gatehouse-auth/store/memory"
 * const store = MemoryStore()
 * await store.consume("jti:abc", 60) // true, then false within 60 s
 * ```
 */
export function MemoryStore(options: MemoryStoreOptions = {}): KeyValueStore & RateLimitStore {
  const maxEntries = options.maxEntries ?? 100_000
  const entries = new Map<string, Entry>()
  let warned = false
  let nextSweep = 0

  const live = (key: string, now: number): Entry | undefined => {
    const entry = entries.get(key)
    if (entry && entry.expiresAt <= now) {
      entries.delete(key)
      return undefined
    }
    return entry
  }
  const sweep = (now: number): void => {
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key)
  }
  const write = (key: string, entry: Entry, now: number): void => {
    if (!warned) {
      warned = true
      if (options.production ?? productionEnv()) {
        if (options.warn) options.warn("memory-store-single-process")
        else process.stderr.write("[gatehouse][warn] memory-store-single-process\n")
      }
    }
    // Re-inserting moves the key to the end, so Map order is the order of last writes.
    entries.delete(key)
    if (entries.size >= maxEntries || now >= nextSweep) {
      sweep(now)
      nextSweep = now + 60_000
    }
    while (entries.size >= maxEntries) {
      const oldest = entries.keys().next().value
      if (oldest === undefined) break
      entries.delete(oldest)
    }
    entries.set(key, entry)
  }

  return {
    async get(keys) {
      const now = Date.now()
      return keys.map((key) => live(checkKey(key), now)?.value ?? null)
    },
    async set(key, value, ttlSeconds) {
      const now = Date.now()
      write(checkKey(key), { value: checkValue(value), expiresAt: now + ttlMs(ttlSeconds) }, now)
    },
    async setMax(key, value, ttlSeconds) {
      checkKey(key)
      checkMaxValue(value)
      const now = Date.now()
      const expiresAt = now + ttlMs(ttlSeconds)
      const current = live(key, now)
      const stored = storedInteger(current?.value)
      if (current && stored !== null && stored >= value) {
        write(key, { value: current.value, expiresAt: Math.max(current.expiresAt, expiresAt) }, now)
        return stored
      }
      write(key, { value: String(value), expiresAt: Math.max(current?.expiresAt ?? 0, expiresAt) }, now)
      return value
    },
    async consume(key, ttlSeconds) {
      checkKey(key)
      const ms = ttlMs(ttlSeconds)
      const now = Date.now()
      if (live(key, now)) return false
      write(key, { value: "1", expiresAt: now + ms }, now)
      return true
    },
    async hit(key, windowSeconds) {
      checkKey(key)
      const ms = ttlMs(windowSeconds)
      const now = Date.now()
      const current = live(key, now)
      const count = (storedInteger(current?.value) ?? 0) + 1
      const expiresAt = current && storedInteger(current.value) !== null ? current.expiresAt : now + ms
      write(key, { value: String(count), expiresAt }, now)
      return windowHit(count, expiresAt, now)
    },
    async reset(key) {
      entries.delete(checkKey(key))
    },
  }
}

export default MemoryStore

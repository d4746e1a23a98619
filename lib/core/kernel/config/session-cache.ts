/**
 * The optional in-process cache of database sessions (`session.cache: { ttl, max }`, off by default): the adapter's
 * `getSessionAndUser` answers are kept for `ttl` seconds, keyed by the stored session key (the token's hash, never the
 * cookie's token). It wraps the adapter in each resolved config, over one cache per adapter object (not per config,
 * and not in the runtime: every config on the same adapter must see the others' writes), so every write that goes
 * through this process (sign-out, revocations, expiry slides, user updates and deletions) drops what it touches at
 * once; a change made by another process or directly in the database is seen after at most `ttl` seconds.
 */
import { sessionMutators } from "../../../storage/adapter"
import type { Adapter, AdapterSession, AdapterUser, SessionMutator } from "../../../storage/adapter"
import { InvalidConfig } from "../../../errors"
import type { SessionCacheOptions } from "../types/session"

export type { SessionCacheOptions }

/** The resolved cache settings. */
export interface ResolvedSessionCache {
  readonly ttl: number
  readonly max: number
}

/** The longest `ttl` accepted, in seconds: a revocation in another process must not stay unseen for long. */
export const MAX_SESSION_CACHE_TTL = 300
/** Default `max`. */
export const DEFAULT_SESSION_CACHE_MAX = 1000
const MAX_SESSION_CACHE_MAX = 1_000_000

/**
 * Validates `session.cache`: `undefined` when absent (off); `ttl` a number in (0, 300], `max` a positive integer up
 * to 1,000,000. Anything else is an `InvalidConfig`.
 *
 * @example
 * ```ts
 * resolveSessionCache({ ttl: 5 }) // { ttl: 5, max: 1000 }
 * ```
 */
export function resolveSessionCache(value: unknown): ResolvedSessionCache | undefined {
  if (value === undefined || value === null || value === false) return undefined
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidConfig("session.cache must be an object { ttl, max? }", { cause: { cache: typeof value } })
  }
  const { ttl, max = DEFAULT_SESSION_CACHE_MAX } = value as { ttl?: unknown; max?: unknown }
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl <= 0 || ttl > MAX_SESSION_CACHE_TTL) {
    throw new InvalidConfig(`session.cache.ttl must be a number of seconds in (0, ${MAX_SESSION_CACHE_TTL}]`, {
      cause: { ttl },
    })
  }
  if (typeof max !== "number" || !Number.isInteger(max) || max < 1 || max > MAX_SESSION_CACHE_MAX) {
    throw new InvalidConfig(`session.cache.max must be an integer in [1, ${MAX_SESSION_CACHE_MAX}]`, {
      cause: { max },
    })
  }
  return Object.freeze({ ttl, max })
}

interface Entry {
  session: AdapterSession
  user: AdapterUser
  /** Milliseconds: when the adapter answered. */
  at: number
}

/** The cached sessions of one adapter object, shared by every config (and runtime) built on it in this process. */
export type SessionCacheEntries = Map<string, Entry>

const byAdapter = new WeakMap<object, SessionCacheEntries>()

/**
 * The one cache of `adapter` (the object the app passed): every config built on the same adapter shares it, so a
 * sign-out through one `Gatehouse(config)` is seen at once by another built on the same adapter.
 *
 * @example
 * ```ts
 * cachedSessionAdapter(wrapped, settings, sessionCacheOf(config.adapter))
 * ```
 */
export function sessionCacheOf(adapter: object): SessionCacheEntries {
  let entries = byAdapter.get(adapter)
  if (!entries) {
    entries = new Map()
    byAdapter.set(adapter, entries)
  }
  return entries
}

const copy = (entry: Entry) => ({ session: { ...entry.session }, user: { ...entry.user } })

type Method = (...args: never[]) => Promise<unknown>

/**
 * Wraps `adapter` with the session cache: `getSessionAndUser` is answered from memory while an entry is younger than
 * `ttl` and its session has not expired; the contract's `sessionMutators` (`updateSession`, `deleteSession`,
 * `deleteSessions`, `deleteSessionsByIdp`, `updateUser`, `deleteUser`, `unlinkAccount`) drop the entries they may
 * change before they run, and `transaction` drops every entry when it ends. Every other method passes through.
 *
 * @example
 * ```ts
 * const adapter = cachedSessionAdapter(wrapAdapter(userAdapter, logger), { ttl: 5, max: 1000 })
 * ```
 */
export function cachedSessionAdapter(
  adapter: Adapter,
  options: ResolvedSessionCache,
  entries: SessionCacheEntries = new Map(),
): Adapter {
  const all: [string, unknown][] = Object.entries(adapter)
  const source: Record<string, Method | undefined> = {}
  for (const [name, value] of all) if (typeof value === "function") source[name] = value as Method
  const dropUser = (userId: unknown) => {
    if (userId === undefined) {
      entries.clear()
      return
    }
    for (const [key, entry] of entries) if (entry.user.id === userId) entries.delete(key)
  }
  const before =
    (name: string, drop: (...args: unknown[]) => void): Method | undefined =>
    (...args: never[]) => {
      drop(...(args as unknown[]))
      return source[name]!(...args)
    }

  const overrides: Record<string, Method | undefined> = {
    getSessionAndUser: (async (key: string) => {
      const now = Date.now()
      const hit = entries.get(key)
      if (hit) {
        entries.delete(key)
        if (now - hit.at < options.ttl * 1000 && new Date(hit.session.expires).valueOf() > now) {
          entries.set(key, hit)
          return copy(hit)
        }
      }
      const found = (await source.getSessionAndUser!(key as never)) as {
        session: AdapterSession
        user: AdapterUser
      } | null
      if (found) {
        entries.set(key, { session: { ...found.session }, user: { ...found.user }, at: now })
        if (entries.size > options.max) entries.delete(entries.keys().next().value!)
      }
      return found
    }) as Method,
  }
  // One rule per method of the contract's `sessionMutators`: the mapped type makes a mutator added there without a
  // rule here a compile error, and the loop below wraps exactly the listed methods.
  const drops: { readonly [M in SessionMutator]: (...args: unknown[]) => void } = {
    updateSession: (patch) => entries.delete((patch as { sessionToken: string }).sessionToken),
    deleteSession: (key) => entries.delete(key as string),
    deleteSessions: (filter) => dropUser((filter as { userId?: unknown } | undefined)?.userId),
    // Which sessions an IdP logout names is known only to the adapter: drop everything.
    deleteSessionsByIdp: () => entries.clear(),
    updateUser: (user) => dropUser((user as { id?: unknown }).id),
    deleteUser: (userId) => dropUser(userId),
    unlinkAccount: () => entries.clear(),
    // Writes inside a transaction go through the transaction's own adapter: drop everything once it has ended.
    transaction: () => entries.clear(),
  }
  for (const name of sessionMutators) {
    const drop = drops[name]
    overrides[name] =
      name === "transaction"
        ? ((async (fn: never) => {
            try {
              return await source.transaction!(fn)
            } finally {
              drop()
            }
          }) as Method)
        : before(name, drop)
  }
  const out: Record<string, unknown> = Object.fromEntries(all)
  for (const [name, method] of Object.entries(overrides)) {
    if (typeof source[name] === "function") out[name] = method
  }
  return Object.freeze(out) as Adapter
}

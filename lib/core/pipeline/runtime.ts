/**
 * The runtime behind `Gatehouse(config)` and the framework layers: one resolved config per config object, and the
 * request-derived caches that belong next to it (never inside the frozen `ResolvedConfig`).
 */
import { createLogger } from "../../logger"
import { createCookielessAnswers, type CookielessAnswers } from "./cookieless"
import type { InternalProvider } from "../kernel/config/providers"
import { resolveConfig, type ResolveOptions } from "../kernel/config/resolve"
import type { ResolvedConfig } from "../kernel/config/types"
import { createRefreshState, type RefreshState } from "../session/refresh"
import { createSessionCache, type SessionCache } from "../kernel/token-cache"
import type { AuthConfig } from "../kernel/types"

/** A config object resolved once, with its caches. */
export interface ConfigRuntime {
  /** The object the user passed (or the lazy function returned). */
  readonly config: AuthConfig
  /** The resolved config, with the base path the config gives (`/auth` by default). */
  readonly resolved: ResolvedConfig
  /** Whether `basePath` was set in the config (then a framework mount must match it). */
  readonly explicitBasePath: boolean
  /**
   * `AUTH_URL`'s path when it is not the root and `basePath` is not set (`/api/auth` for
   * `https://app.example/api/auth`): a framework mount must match it, as it must match an explicit `basePath`.
   */
  readonly urlBasePath?: string
  /** Decrypted session tokens of this config, keyed by cookie value. */
  readonly sessionCache: SessionCache
  /** The kept answers of cookie-less session reads, by base path and origin (issue 16). */
  readonly cookielessAnswers: CookielessAnswers
  /** In-flight refreshes and back-offs of `getAccessToken()` for this config in this process. */
  readonly refresh: RefreshState
  /** The resolved config served under another base path (the mount path), derived once per base. */
  at(basePath: string): ResolvedConfig
}

/**
 * Resolves `config` (throwing a clear `AuthError` when it is bad) into a runtime of its own.
 *
 * @example
 * ```ts
 * const runtime = createConfigRuntime(config)
 * runtime.at("/api/auth").basePath // "/api/auth"
 * ```
 */
export function createConfigRuntime(
  config: AuthConfig,
  options: ResolveOptions = {},
  adopt: (resolved: ResolvedConfig) => ResolvedConfig = (resolved) => resolved,
): ConfigRuntime {
  const resolved = adopt(resolveConfig(config, options))
  const sessionCache = createSessionCache()
  let other: ResolvedConfig | undefined
  const urlPath = config.basePath === undefined ? resolved.authUrl?.pathname.replace(/\/+$/, "") : undefined
  return {
    config,
    resolved,
    explicitBasePath: config.basePath !== undefined,
    ...(urlPath ? { urlBasePath: resolved.basePath } : {}),
    sessionCache,
    cookielessAnswers: createCookielessAnswers(),
    refresh: createRefreshState(),
    at(basePath) {
      if (basePath === resolved.basePath) return resolved
      // The same resolution (providers, adapter, logger) under another base: the base path is the only difference.
      if (other?.basePath !== basePath) other = Object.freeze({ ...resolved, basePath })
      return other
    },
  }
}

const shared = new WeakMap<object, ConfigRuntime>()

/**
 * The runtime of a config object for the stateless entry points (`Auth(request, config)`): one per object identity.
 *
 * @example
 * ```ts
 * sharedRuntime(config) === sharedRuntime(config) // true
 * ```
 */
export function sharedRuntime(config: AuthConfig, options: ResolveOptions = {}): ConfigRuntime {
  let runtime = shared.get(config)
  if (!runtime) {
    runtime = createConfigRuntime(config, options)
    shared.set(config, runtime)
  }
  return runtime
}

/** How many distinct config objects a lazy config may return before the oldest is dropped (and a warning logged). */
export const LAZY_CONFIG_LIMIT = 100

/**
 * A bounded cache from the objects a lazy `(request) => config` function returns to their runtimes. The same object
 * is resolved once; when the function returns more than {@link LAZY_CONFIG_LIMIT} distinct objects, the least recently
 * used one is dropped and `lazy-config-unstable` is logged once (it most likely builds a new object per request).
 *
 * @example
 * ```ts
 * const runtimes = createRuntimeCache()
 * runtimes.get(config) === runtimes.get(config) // true
 * ```
 */
export function createRuntimeCache(limit = LAZY_CONFIG_LIMIT): { get(config: AuthConfig): ConfigRuntime } {
  const entries = new Map<AuthConfig, ConfigRuntime>()
  const adopt = providerReuse()
  let warned = false
  return {
    get(config) {
      const hit = entries.get(config)
      if (hit) {
        // Map order is insertion order: re-inserting marks the entry as the most recently used.
        entries.delete(config)
        entries.set(config, hit)
        return hit
      }
      const runtime = createConfigRuntime(config, {}, adopt)
      if (entries.size >= limit) {
        const oldest = entries.keys().next().value
        if (oldest !== undefined) entries.delete(oldest)
        if (!warned) {
          warned = true
          createLogger({ debug: config.debug, logger: config.logger }).warn("lazy-config-unstable")
        }
      }
      entries.set(config, runtime)
      return runtime
    },
  }
}

/**
 * Keeps the resolved providers of a lazy config stable across the config objects it returns: a newly resolved provider
 * equal to one resolved before (same values; functions, keys and other non-plain objects by identity) is replaced by
 * that earlier object. The OAuth engine caches discovery metadata and JWKS per provider object, so those caches
 * survive a function that builds a new config object per request.
 */
function providerReuse(limit = 50): (resolved: ResolvedConfig) => ResolvedConfig {
  const known: InternalProvider[] = []
  return (resolved) => {
    let changed = false
    const providers = resolved.providers.map((provider) => {
      const earlier = known.find((candidate) => candidate !== provider && sameValue(candidate, provider, 0))
      if (earlier) {
        changed = true
        return earlier
      }
      known.push(provider)
      if (known.length > limit) known.shift()
      return provider
    })
    if (!changed) return resolved
    return Object.freeze({
      ...resolved,
      providers: Object.freeze(providers),
      providerById: new Map(providers.map((p) => [p.id, p])),
    })
  }
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null || Array.isArray(value)
}

function sameValue(a: unknown, b: unknown, depth: number): boolean {
  if (Object.is(a, b)) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || depth > 8) return false
  if (a instanceof URL && b instanceof URL) return a.href === b.href
  // Functions, keys (CryptoKey), maps and class instances count as equal only when they are the same object.
  if (!isPlain(a) || !isPlain(b) || Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Reflect.ownKeys(a)
  const keysB = Reflect.ownKeys(b)
  if (keysA.length !== keysB.length) return false
  return keysA.every(
    (key) =>
      keysB.includes(key) &&
      sameValue((a as Record<PropertyKey, unknown>)[key], (b as Record<PropertyKey, unknown>)[key], depth + 1),
  )
}

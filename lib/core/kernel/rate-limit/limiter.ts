/**
 * The rate limiter of the auth routes: the rules table, resolved once per config, and fixed windows counted
 * atomically in the chosen store under keys hashed with the secret.
 */
import { createHmac } from "node:crypto"
import { InvalidConfig, RateLimited } from "../../../errors"
import type { LoggerInstance } from "../../../logger"
import type { KeyValueStore, RateLimitStore } from "../../../storage/kv"
import type { RateLimitedEvent, RateLimitOptions, RateLimitRule, RateLimitRuleName } from "./types"

/** What a rule counts by: the client IP, an identifier from the request body, or the session. */
export type RuleSubject = "ip" | "identifier" | "session"

/** The default rules. */
export const defaultRateLimitRules: Readonly<Record<RateLimitRuleName, Readonly<RateLimitRule & { by: RuleSubject }>>> =
  Object.freeze({
    "credentials-ip": { limit: 10, window: 60, by: "ip" },
    "credentials-account": { limit: 10, window: 900, by: "identifier" },
    "email-send-ip": { limit: 10, window: 600, by: "ip" },
    "email-send-address": { limit: 3, window: 600, by: "identifier" },
    "webauthn-options": { limit: 30, window: 60, by: "ip" },
    "webauthn-verify": { limit: 10, window: 60, by: "ip" },
    "two-factor": { limit: 10, window: 60, by: "ip" },
    backchannel: { limit: 60, window: 60, by: "ip" },
    "session-update": { limit: 30, window: 60, by: "session" },
    // Each start of a pushing provider costs an authenticated request to the provider (amplification).
    "oauth-par-ip": { limit: 20, window: 60, by: "ip" },
    // tokens.md section 8: the native code exchange by client IP, access-token issuance by session.
    "token-exchange": { limit: 30, window: 60, by: "ip" },
    "access-token": { limit: 60, window: 60, by: "session" },
    // Two-factor sign-in: per challenge and per user; email codes per code request. On with the limiter off.
    "two-factor-challenge": { limit: 5, window: 600, by: "identifier" },
    "two-factor-account": { limit: 10, window: 900, by: "identifier" },
    "email-code": { limit: 5, window: 600, by: "identifier" },
    // The Password provider: sign-ups per IP, emails per address (shared by sign-up, forgot and resend), forgot and
    // resend per IP, link uses per IP, and failed current-password checks per user.
    "signup-ip": { limit: 10, window: 3600, by: "ip" },
    "password-email-address": { limit: 3, window: 600, by: "identifier" },
    "password-forgot-ip": { limit: 10, window: 600, by: "ip" },
    "password-token-ip": { limit: 20, window: 600, by: "ip" },
    "password-change": { limit: 10, window: 900, by: "identifier" },
    // Accounts (accounts.md §7), counted by the session user (admin: the admin's id).
    "account-email-change": { limit: 5, window: 3600, by: "session" },
    "account-delete": { limit: 3, window: 3600, by: "session" },
    "account-link": { limit: 10, window: 600, by: "session" },
    "account-link-confirm": { limit: 30, window: 600, by: "ip" },
    admin: { limit: 300, window: 60, by: "session" },
  })

/** Rules that count even when `rateLimit.enabled` is false: they protect one account or one code, not the server. */
const ALWAYS_ON: ReadonlySet<RateLimitRuleName> = new Set([
  "email-send-address",
  "two-factor-challenge",
  "two-factor-account",
  "email-code",
  // Passwords: the emails of sign-up, forgot and resend per address (passwords.md clarification 5).
  "password-email-address",
  // Bounds address enumeration through email changes (accounts.md §7).
  "account-email-change",
])

/**
 * The long counter of `credentials-account` (E.2 rule 2, NIST SP 800-63B: at most 100 consecutive failures): 100 per
 * 24 h, reset by a success or `resetRateLimit({ identifier })`. It is on and off with `credentials-account`.
 */
export const LONG_ACCOUNT_RULE: Readonly<RateLimitRule> = Object.freeze({ limit: 100, window: 86_400 })

/** Which counter of a rule: its own window, or the long one (`credentials-account` only). */
export type RuleCounter = "window" | "long"

/** A refused hit: the rule, its limit and window, and the seconds until the window ends. */
export interface LimitVerdict {
  rule: RateLimitRuleName
  limit: number
  window: number
  retryAfter: number
}

/** The limiter of one resolved config. */
export interface RateLimiter {
  /** `rateLimit.enabled`: whether limited requests are refused (`email-send-address` runs regardless). */
  readonly enabled: boolean
  /** Whether `rule` counts at all under this config. */
  active(rule: RateLimitRuleName): boolean
  /**
   * Counts one hit of `rule` for `subject` (an IP subject, a normalised identifier or a session token) within
   * `scope` (the normalised route, e.g. `callback/credentials`). Resolves to a verdict when the hit is over the limit,
   * else `null`. The first refused hit of a window emits `events.rateLimited`.
   */
  hit(
    rule: RateLimitRuleName,
    scope: string,
    subject: string,
    ip?: string,
    counter?: RuleCounter,
    /** A limit and window of this one subject (an email code's attempts per its lifetime) instead of the rule's. */
    own?: RateLimitRule,
  ): Promise<LimitVerdict | null>
  /** Forgets the window of `rule` for `subject` (a credentials success resets `credentials-account`). */
  reset(rule: RateLimitRuleName, scope: string, subject: string, counter?: RuleCounter): Promise<void>
  /** The error a refused request ends in: `RateLimited` with status 429 and the configured headers. */
  refuse(verdict: LimitVerdict): RateLimited
  /** Logs `rate-limit-no-client-ip` once: an IP rule was skipped because the client IP is unknown. */
  noClientIp(): void
  /** `rateLimit.ip`, when configured. */
  readonly ip?: RateLimitOptions["ip"]
  readonly ipv6Subnet: number
}

interface LimiterSetup {
  options: RateLimitOptions | undefined
  production: boolean
  secret: string
  /** The config's key-value store and where it came from. */
  kv: KeyValueStore
  kvSource: "config" | "adapter" | "memory"
  events: { rateLimited: RateLimitedEvent }
  logger: LoggerInstance
}

const isRateLimitStore = (value: unknown): value is RateLimitStore =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as RateLimitStore).hit === "function" &&
  typeof (value as RateLimitStore).reset === "function"

function invalid(message: string, cause: Record<string, unknown>): InvalidConfig {
  return new InvalidConfig(message, { cause })
}

function resolveRules(overrides: RateLimitOptions["rules"]): Map<RateLimitRuleName, RateLimitRule | false> {
  const rules = new Map<RateLimitRuleName, RateLimitRule | false>()
  for (const [name, rule] of Object.entries(defaultRateLimitRules) as [RateLimitRuleName, RateLimitRule][]) {
    rules.set(name, { limit: rule.limit, window: rule.window })
  }
  if (overrides === undefined) return rules
  if (typeof overrides !== "object" || overrides === null)
    throw invalid("Invalid rateLimit.rules", { rules: overrides })
  for (const [name, override] of Object.entries(overrides)) {
    if (!Object.hasOwn(defaultRateLimitRules, name)) {
      throw invalid(`Unknown rate-limit rule "${name}"`, { rule: name, known: Object.keys(defaultRateLimitRules) })
    }
    const key = name as RateLimitRuleName
    if (override === false) {
      rules.set(key, false)
      continue
    }
    if (override === undefined) continue
    const base = defaultRateLimitRules[key]
    const limit = override.limit ?? base.limit
    const window = override.window ?? base.window
    if (!Number.isSafeInteger(limit) || limit < 1 || !Number.isSafeInteger(window) || window < 1) {
      throw invalid(`Invalid rate-limit rule "${name}": limit and window are positive whole numbers`, {
        rule: name,
        limit,
        window,
      })
    }
    rules.set(key, { limit, window })
  }
  return rules
}

function resolveStore(setup: LimiterSetup, makeMemory: () => RateLimitStore): RateLimitStore {
  const chosen = setup.options?.store ?? "memory"
  // A map of its own, never the config's memory store: a flood of counters (one per rotated IPv6 network) must not
  // evict revocation watermarks from a shared 100,000-entry cap.
  if (chosen === "memory") return makeMemory()
  if (chosen === "adapter") {
    if (setup.kvSource === "memory") {
      throw invalid('rateLimit.store "adapter" needs `store` or an adapter with a store', { store: chosen })
    }
    if (!isRateLimitStore(setup.kv)) {
      throw invalid('rateLimit.store "adapter": the key-value store has no `hit` and `reset`', { store: chosen })
    }
    return setup.kv
  }
  if (!isRateLimitStore(chosen)) throw invalid("Invalid rateLimit.store: it needs `hit` and `reset`", {})
  return chosen
}

/**
 * Resolves `config.rateLimit` into the limiter of one config. Throws `InvalidConfig` for an unknown rule, a bad
 * limit or window, or a store that cannot count.
 *
 * @example
 * ```ts
 * const limiter = createRateLimiter({ options: config.rateLimit, production, secret, kv, kvSource, events, logger },
 *   () => MemoryStore())
 * ```
 */
export function createRateLimiter(setup: LimiterSetup, makeMemory: () => RateLimitStore): RateLimiter {
  const { options } = setup
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw invalid("Invalid rateLimit: an object is expected", {})
  }
  const enabled = options?.enabled ?? setup.production
  const ipv6Subnet = options?.ipv6Subnet ?? 64
  if (!Number.isInteger(ipv6Subnet) || ipv6Subnet < 1 || ipv6Subnet > 128) {
    throw invalid("Invalid rateLimit.ipv6Subnet", { ipv6Subnet })
  }
  const headerMode = options?.headers ?? "retry-after"
  if (headerMode !== "retry-after" && headerMode !== "draft-ietf-10" && headerMode !== false) {
    throw invalid("Invalid rateLimit.headers", { headers: headerMode })
  }
  if (options?.ip !== undefined && typeof options.ip !== "function") throw invalid("Invalid rateLimit.ip", {})
  const rules = resolveRules(options?.rules)
  const store = resolveStore(setup, makeMemory)
  const keyOf = (rule: RateLimitRuleName, scope: string, subject: string, counter: RuleCounter): string => {
    const name = counter === "long" ? `${rule}:long` : rule
    return `rl:${name}:${createHmac("sha256", setup.secret).update(`${name}\0${scope}\0${subject}`).digest("base64url")}`
  }
  let warnedNoIp = false

  const limiter: RateLimiter = {
    enabled,
    ip: options?.ip,
    ipv6Subnet,
    active(rule) {
      if (rules.get(rule) === false) return false
      // Mailboxes (EM-13, issue 11), second factors, email codes and email changes count even with the limiter off.
      return enabled || ALWAYS_ON.has(rule)
    },
    async hit(rule, scope, subject, ip, counter = "window", own) {
      const configured = rules.get(rule)
      if (!configured || !limiter.active(rule)) return null
      const current = counter === "long" ? LONG_ACCOUNT_RULE : (own ?? configured)
      const key = keyOf(rule, scope, subject, counter)
      const { count, resetMs } = await store.hit(key, current.window)
      if (count <= current.limit) return null
      // Counts are atomic, so exactly one hit of each window is the first one over the limit.
      if (count === current.limit + 1) {
        await setup.events.rateLimited({ rule, key, ...(ip !== undefined && { ip }) })
      }
      return { rule, limit: current.limit, window: current.window, retryAfter: Math.max(1, Math.ceil(resetMs / 1000)) }
    },
    async reset(rule, scope, subject, counter = "window") {
      if (!rules.get(rule) || !limiter.active(rule)) return
      await store.reset(keyOf(rule, scope, subject, counter))
    },
    refuse(verdict) {
      const headers: Record<string, string> = {}
      if (headerMode !== false) headers["Retry-After"] = String(verdict.retryAfter)
      if (headerMode === "draft-ietf-10") {
        headers["RateLimit-Policy"] = `"${verdict.rule}";q=${verdict.limit};w=${verdict.window}`
        headers.RateLimit = `"${verdict.rule}";r=0;t=${verdict.retryAfter}`
      }
      const error = new RateLimited("Too many requests", {
        status: 429,
        headers,
        cause: { rule: verdict.rule, retryAfter: verdict.retryAfter },
      })
      error.retryAfter = verdict.retryAfter
      return error
    },
    noClientIp() {
      if (warnedNoIp) return
      warnedNoIp = true
      setup.logger.warn("rate-limit-no-client-ip")
    },
  }
  return limiter
}

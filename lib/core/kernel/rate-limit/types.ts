/**
 * The limiter's vocabulary: the `rateLimit` option (its rules, their names, where the counters live) and the
 * `rateLimited` event. `AuthConfig` and `EventCallbacks` take these from here.
 */
import type { Awaitable } from "../../../models"
import type { RateLimitStore } from "../../../storage/kv"

/** The names of the rate-limit rules (README "Rate limiting" has the table). */
export type RateLimitRuleName =
  | "credentials-ip"
  | "credentials-account"
  | "email-send-ip"
  | "email-send-address"
  | "webauthn-options"
  | "webauthn-verify"
  | "two-factor"
  | "backchannel"
  | "session-update"
  | "oauth-par-ip"
  | "token-exchange"
  | "access-token"
  | "two-factor-challenge"
  | "two-factor-account"
  | "email-code"
  | "signup-ip"
  | "password-email-address"
  | "password-forgot-ip"
  | "password-token-ip"
  | "password-change"
  | "account-email-change"
  | "account-delete"
  | "account-link"
  | "account-link-confirm"
  | "admin"

/** One rule's fixed window: at most `limit` hits per `window` seconds. */
export interface RateLimitRule {
  limit: number
  window: number
}

/** What `rateLimit.ip` receives: the Express request in the Express flavour, the Web `Request` otherwise. */
export type ClientIpSource = Request | { ip?: string; headers: object; socket?: { remoteAddress?: string } }

/** `rateLimit`: the limiter of the auth routes (README "Rate limiting"). */
export interface RateLimitOptions {
  /** Default: `NODE_ENV === "production"`. Off, only `email-send-address` still runs (silently, EM-13). */
  enabled?: boolean
  /**
   * Where the counters live: `"memory"` (default, this process only), `"adapter"` (the key-value store: `config.store`
   * or the adapter's, shared by every instance), or any object with `hit` and `reset`.
   */
  store?: "memory" | "adapter" | RateLimitStore
  /**
   * The client IP. Default in the Express flavour: `req.ip`, so the app's `trust proxy` decides whether
   * `X-Forwarded-For` counts. The web flavour has no default: without it the IP-keyed rules are skipped.
   */
  ip?(request: ClientIpSource): string | null | undefined
  /** IPv6 addresses count per network of this many bits. Default 64. */
  ipv6Subnet?: number
  /** Headers of a limited answer: `Retry-After` (default), also the IETF draft-10 `RateLimit`/`RateLimit-Policy`, or none. */
  headers?: "retry-after" | "draft-ietf-10" | false
  /** Per-rule overrides (`{ limit, window }`, either may be left out), or `false` to turn a rule off. */
  rules?: Partial<Record<RateLimitRuleName, Partial<RateLimitRule> | false>>
}

/** The `rateLimited` event: a rate limit refused a request; at most once per rule and key in each window. */
export type RateLimitedEvent = (message: { rule: RateLimitRuleName; key: string; ip?: string }) => Awaitable<void>

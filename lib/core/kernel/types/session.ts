/** The `session` and `jwt` options: the strategy, lifetimes, and how JWT session tokens are made. */
import type { JWTDecodeParams, JWTEncodeParams } from "../../../jwt/types"
import type { Awaitable, JWT } from "../../../models"

export type SessionStrategy = "jwt" | "database"

export interface SessionOptions {
  strategy: SessionStrategy
  /** Seconds until an idle session expires. Default 30 days. */
  maxAge: number
  /** Seconds between session refreshes (database writes, JWT re-issue on server reads). Default 1 day. */
  updateAge: number
  /** Token generator for database sessions. */
  generateSessionToken: () => string
  /** Seconds after sign-in during which sensitive calls (deleting a passkey) are allowed. Default 900. */
  freshAge: number
  /**
   * Refresh-token rotation: with `signOutOnError: true`, a session whose provider refused the refresh token reads as
   * no session (`null`) instead of a session with `error: "RefreshTokenError"`. Default false.
   */
  refresh?: { signOutOnError?: boolean }
  /**
   * Database sessions with session management: record the client IP on each new session, shown by `listSessions`.
   * `false` (default) stores none; `true` the address; `"truncate"` only its network (IPv4 /24, IPv6 /64). The IP is
   * Express's `req.ip` (so `trust proxy` decides) or, in the Fetch flavour, `rateLimit.ip(request)`.
   */
  storeIp?: boolean | "truncate"
  /**
   * Database sessions only: keep each session read from the adapter in this process for `ttl` seconds (at most 300),
   * at most `max` of them (default 1000). Off by default. A sign-out or revocation made through this process takes
   * effect at once; one made by another process, or directly in the database, after at most `ttl` seconds.
   */
  cache?: SessionCacheOptions
  /**
   * Bearer sessions (tokens.md T1): accept `Authorization: Bearer <session token>` wherever a session cookie counts,
   * and answer sign-ins sent with `X-Auth-Return-Token: 1` with the token in JSON instead of a cookie. Default false.
   */
  bearer?: boolean
}

export interface JWTOptions {
  /** Default 30 days. */
  maxAge: number
  encode: (params: JWTEncodeParams) => Awaitable<string>
  decode: (params: JWTDecodeParams) => Awaitable<JWT | null>
  secret?: string | string[]
}

/** `session.cache` as the user writes it. */
export interface SessionCacheOptions {
  /** Seconds a cached session is trusted without asking the adapter (at most 300). */
  ttl: number
  /** Most sessions kept; the least recently used goes first. Default 1000. */
  max?: number
}

/** What the session functions need: a slice of the request context that `getSession` can build without a Request. */
import type { ResolvedConfig } from "../kernel/config/types"
import type { CookieJar } from "../kernel/cookies/jar"
import type { SessionCache } from "../kernel/token-cache"
import type { AdapterSession, AdapterUser } from "../../storage/adapter"
import type { StoredSessionCookie } from "../../cookie-header"
import type { JWT } from "../kernel/types"
import type { CookiesOptions } from "../kernel/types"

export interface SessionContext {
  readonly config: ResolvedConfig
  readonly cookies: CookiesOptions
  readonly requestCookies: Record<string, string>
  readonly jar: CookieJar
  /** Decrypted-token cache of the runtime that owns this config (never part of the frozen config). */
  readonly sessionCache?: SessionCache
  /** The request's `User-Agent`, recorded on new database sessions (first 256 characters). */
  readonly userAgent?: string | null
  /** The client IP as the framework layer or `rateLimit.ip` gives it (read only when `session.storeIp` is on). */
  readonly clientIp?: () => string | null
  /** The request's memory of who is signed in ({@link currentPrincipal}): shared by every reader of one request. */
  readonly memo?: PrincipalMemo
  /**
   * The bearer session the request carries where one counts (tokens.md T1): the door reads it instead of the cookie
   * (`token: null`: a malformed `Bearer` header, no session). Absent: the cookie decides.
   */
  readonly bearer?: { readonly token: string | null }
  /**
   * Where an issued or re-issued session goes instead of the cookie jar: set for a request identified by its bearer
   * (re-issue in `X-Auth-Token`) and for a token sign-in (`{token, expires}` in JSON).
   */
  readonly tokenOut?: IssuedToken
}

/** A session token issued to a client instead of a cookie, and when it expires (seconds since the epoch). */
export interface IssuedToken {
  token?: string
  expires?: number
}

export interface SessionReadOptions {
  /** A POST /session update: `data` reaches the callbacks with `trigger: "update"`. */
  update?: { data: unknown }
  /**
   * `always` re-issues the cookie on every read (GET /session with database sessions, as the reference does);
   * `throttled` (GET /session with JWT sessions, `getSession`, `auth()`, `requireAuth`) only when it changes
   * something: a JWT once `session.updateAge` has passed since it was issued, when it was sealed with an older secret
   * of a rotation list, or when the `jwt` callback changed the payload (an update always re-issues); a database
   * session when its expiry slides.
   */
  reissue: "always" | "throttled"
  /**
   * The /session route: when the database or the store cannot be reached (or times out), throw the coded
   * `AdapterError` (`adapter_unavailable`/`adapter_timeout`) so the route answers 503, instead of reading as signed
   * out. Server-side reads leave it unset: they fail closed to `null`.
   */
  failOnOutage?: boolean
}

/** A JWT session: the decoded token (its reserved claim included). */
export interface JwtPrincipal {
  readonly strategy: "jwt"
  /** The token's `sub`: the user id (absent only for a credentials user without one). */
  readonly userId: string | undefined
  readonly token: JWT
  /** When the user signed in (seconds), from the token's sign-in claim; `undefined` for tokens without one. */
  readonly authTime: number | undefined
}

/** A database session: the row and its user, as the adapter returned them. */
export interface DatabasePrincipal {
  readonly strategy: "database"
  readonly userId: string
  readonly user: AdapterUser
  /** The row; `sessionToken` is its stored key (the token's hash, or the raw token of a legacy row). */
  readonly session: AdapterSession
  /** When the session was issued (seconds), when the adapter keeps `createdAt`. */
  readonly authTime: number | undefined
}

/** Who is signed in. */
export type Principal = JwtPrincipal | DatabasePrincipal

/**
 * Why no one is signed in: `none` (no session cookie), `invalid` (a cookie that does not decode or names no row),
 * `expired`, `revoked` (signed out everywhere, or this session revoked), `backchannel` (ended by its OP), `error` (the
 * store or the adapter failed: no session for this request, but the cookie is not known to be bad).
 */
export type NoPrincipalReason = "none" | "invalid" | "expired" | "revoked" | "backchannel" | "error"

/** The answer of {@link currentPrincipal}. `cookie` is the session cookie as the request carried it. */
export type PrincipalResult =
  | { readonly ok: true; readonly principal: Principal; readonly cookie: StoredSessionCookie }
  | {
      readonly ok: false
      readonly reason: NoPrincipalReason
      readonly cookie: StoredSessionCookie
      /**
       * `revoked`/`backchannel` JWT sessions: the token that was ended (for the `signOut` event); `expired`: an
       * impersonation session past its cap (`__gh.ie`), whose end stopping or signing out audits.
       */
      readonly token?: JWT
      /** `expired` database sessions: the row, for the reader to delete. */
      readonly session?: AdapterSession
      /** `error`: the coded failure. */
      readonly error?: unknown
    }

/** Per-request memory of the door: one read of the session cookie per request, however many readers ask. */
export interface PrincipalMemo {
  principal?: Promise<PrincipalResult>
  /** The admin id when the principal is an impersonation session (the `actorId` of its audit events). */
  impersonator?: string
}

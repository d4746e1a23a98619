/** What the session functions need: a slice of the request context that `getSession` can build without a Request. */
import type { ResolvedConfig } from "../kernel/config/types"
import type { CookieJar } from "../kernel/cookies/jar"
import type { SessionCache } from "./cache"
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

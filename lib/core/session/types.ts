/** What the session functions need: a slice of the request context that `getSession` can build without a Request. */
import type { ResolvedConfig } from "../config/types"
import type { CookieJar } from "../cookies/jar"
import type { SessionCache } from "./cache"
import type { CookiesOptions } from "../types"

export interface SessionContext {
  readonly config: ResolvedConfig
  readonly cookies: CookiesOptions
  readonly requestCookies: Record<string, string>
  readonly jar: CookieJar
  /** Decrypted-token cache of the runtime that owns this config (never part of the frozen config). */
  readonly sessionCache?: SessionCache
  /** The request's `User-Agent`, recorded on new database sessions (first 256 characters). */
  readonly userAgent?: string | null
}

export interface SessionReadOptions {
  /** A POST /session update: `data` reaches the callbacks with `trigger: "update"`. */
  update?: { data: unknown }
  /**
   * `always` re-issues the cookie on every read (the /session route, as the reference does); `throttled` only once
   * `session.updateAge` has passed since the token was issued (server-side reads).
   */
  reissue: "always" | "throttled"
  /**
   * The /session route: when the database or the store cannot be reached (or times out), throw the coded
   * `AdapterError` (`adapter_unavailable`/`adapter_timeout`) so the route answers 503, instead of reading as signed
   * out. Server-side reads leave it unset: they fail closed to `null`.
   */
  failOnOutage?: boolean
}

/** What the session functions need: a slice of the request context that `getSession` can build without a Request. */
import type { ResolvedConfig } from "../config/resolve"
import type { CookieJar } from "../cookies/jar"
import type { CookiesOptions } from "../types"

export interface SessionContext {
  readonly config: ResolvedConfig
  readonly cookies: CookiesOptions
  readonly requestCookies: Record<string, string>
  readonly jar: CookieJar
}

export interface SessionReadOptions {
  /** A POST /session update: `data` reaches the callbacks with `trigger: "update"`. */
  update?: { data: unknown }
  /**
   * `always` re-issues the cookie on every read (the /session route, as the reference does); `throttled` only once
   * `session.updateAge` has passed since the token was issued (server-side reads).
   */
  reissue: "always" | "throttled"
}

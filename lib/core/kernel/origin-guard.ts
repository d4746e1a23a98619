/**
 * The origin guard of state-changing server calls (`signIn` with credentials or email, `signOut`): the proof that the
 * request the server code is handling came from the app itself, which replaces the form's CSRF token.
 */
import { resolveCsrf } from "./csrf"
import type { ResolvedConfig } from "./config/types"
import type { CookiesOptions } from "./types"

/** What the guard reads of the request being handled. */
export interface GuardedRequest {
  method: string
  /** `Sec-Fetch-Site` header. */
  secFetchSite?: string | null
  /** `Origin` header. */
  origin?: string | null
  /** Cookies of the request. */
  cookies: Record<string, string>
  /** `csrfToken` of the parsed body, when the app parsed one. */
  bodyCsrfToken?: unknown
}

/**
 * Whether a server-side state change may run while handling `request`. GET and HEAD never may (no state change on a
 * safe method). Otherwise one proof suffices: `Sec-Fetch-Site: same-origin` or `none`; an `Origin` equal to the app
 * origin; or a `csrfToken` in the body matching the CSRF cookie (double submit).
 *
 * @example
 * ```ts
 * if (!originGuardPasses(resolved, cookies, appOrigin, { method: "POST", origin: "https://app.example", cookies: {} }))
 *   throw new MissingCSRF()
 * ```
 */
export function originGuardPasses(
  config: ResolvedConfig,
  cookieNames: CookiesOptions,
  appOrigin: string,
  request: GuardedRequest,
): boolean {
  const method = request.method.toUpperCase()
  if (method === "GET" || method === "HEAD") return false
  const site = request.secFetchSite?.toLowerCase()
  if (site === "same-origin" || site === "none") return true
  if (request.origin && request.origin === appOrigin) return true
  const cookieValue = request.cookies[cookieNames.csrfToken.name]
  if (!cookieValue || typeof request.bodyCsrfToken !== "string") return false
  return resolveCsrf({ secret: config.secret, cookieValue, isPost: true, bodyToken: request.bodyCsrfToken }).verified
}

/**
 * The one deny rule of every `auth` form (Express middleware, `auth(handler)`, `requireAuth`, the Fetch wrapper):
 * `callbacks.authorized` decides, falsy means deny, auth routes and the sign-in/error pages are exempt, and a redirect
 * back to the current URL is not followed. The framework layers only render the verdict.
 */
import type { ResolvedConfig } from "../kernel/config/resolve"
import type { Session } from "../kernel/types"

/** The request being checked, as the framework layer sees it. */
export interface AccessRequest {
  /** Absolute URL of the request, under the app origin (`AUTH_URL`'s when set). */
  url: URL
  method: string
  headers: Headers
  /** The framework's own request object, handed to `authorized` as `request.req`. */
  req?: unknown
}

export interface AccessOptions {
  /** `requireAuth`: no session is a denial even without `authorized`. */
  requireSession?: boolean
  /** Where browsers go to sign in. Default: `pages.signIn`, else `<basePath>/signin`. */
  signInUrl?: string
}

export type AccessVerdict =
  | { kind: "pass" }
  /** Send this `Response` from `authorized` as it is (with the session cookies). */
  | { kind: "response"; response: Response }
  /** 401 JSON, 403, or (`location` set) a 302 to the sign-in page. */
  | { kind: "deny"; status: 401 | 403 | 302; json: boolean; location?: string }

/**
 * Whether the client is an API client (JSON answers) rather than a browser: an `Accept` without `text/html`, an XHR,
 * or a `fetch()` (`Sec-Fetch-Mode: cors` or `same-origin`).
 *
 * @example
 * ```ts
 * wantsJson(new Headers({ accept: "application/json" })) // true
 * ```
 */
export function wantsJson(headers: Headers): boolean {
  if (headers.get("x-requested-with") === "XMLHttpRequest") return true
  const mode = headers.get("sec-fetch-mode")
  if (mode === "cors" || mode === "same-origin") return true
  return !(headers.get("accept") ?? "").includes("text/html")
}

function underPath(pathname: string, base: string): boolean {
  const p = pathname.toLowerCase()
  const b = base.toLowerCase()
  return p === b || p.startsWith(`${b}/`)
}

function sameUrl(location: string, current: URL): boolean {
  try {
    return new URL(location, current).href === current.href
  } catch {
    return false
  }
}

/**
 * Decides a request: the verdict of `authorized` (when the config has one and the path is not exempt), then, for
 * `requireSession`, whether there is a session at all.
 *
 * @example
 * ```ts
 * const verdict = await decideAccess(resolved, session, { url, method: "GET", headers })
 * if (verdict.kind === "pass") return next()
 * ```
 */
export async function decideAccess(
  config: ResolvedConfig,
  session: Session | null,
  request: AccessRequest,
  options: AccessOptions = {},
): Promise<AccessVerdict> {
  const deny = (status: 401 | 403): AccessVerdict => {
    const json = wantsJson(request.headers)
    if (status === 403 || json) return { kind: "deny", status, json }
    const page = options.signInUrl ?? config.pages.signIn ?? `${config.basePath}/signin`
    const query = new URLSearchParams({ callbackUrl: request.url.href })
    return { kind: "deny", status: 302, json, location: `${page}${page.includes("?") ? "&" : "?"}${query}` }
  }

  const { pathname } = request.url
  const exempt =
    underPath(pathname, config.basePath || "/") ||
    [config.pages.signIn, config.pages.error].some((page) => page !== undefined && underPath(pathname, page))
  const authorized = config.userAuthorized
  if (authorized && !exempt) {
    let verdict = await authorized({
      auth: session,
      request: {
        url: request.url.href,
        nextUrl: new URL(request.url),
        method: request.method,
        headers: request.headers,
        req: request.req,
      },
    })
    if (verdict instanceof Response) {
      const location = verdict.headers.get("location")
      if (location === null || !sameUrl(location, request.url)) return { kind: "response", response: verdict }
      config.logger.warn("authorized-redirect-loop")
      verdict = false
    }
    if (!verdict) return deny(session ? 403 : 401)
  }
  if (options.requireSession && !session) return deny(401)
  return { kind: "pass" }
}

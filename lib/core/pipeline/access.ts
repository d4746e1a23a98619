/**
 * The one deny rule of every `auth` form (Express middleware, `auth(handler)`, `requireAuth`, the Fetch wrapper):
 * `callbacks.authorized` decides on the path as the app routes it, falsy means deny, the auth routes and the
 * sign-in/error pages are exempt, and a redirect back to the current URL is not followed. The framework layers only
 * render the verdict.
 */
import { carriedBearer } from "../kernel/bearer"
import type { ResolvedConfig } from "../kernel/config/resolve"
import { isRoute } from "../kernel/routes"
import type { Session } from "../kernel/types"

/** How the app's router compares paths (Express: the `case sensitive routing` and `strict routing` settings). */
export interface PathRouting {
  /** `/Admin` and `/admin` are different routes. */
  caseSensitive: boolean
  /** `/admin/` and `/admin` are different routes. */
  strict: boolean
}

/** A Fetch router matches the path as it is: the default when the framework layer names no settings. */
const exactRouting: PathRouting = { caseSensitive: true, strict: true }

/** The request being checked, as the framework layer sees it. */
export interface AccessRequest {
  /**
   * Absolute URL of the request, under the app origin (`AUTH_URL`'s when set), with the path as the app routes it:
   * the framework layer refuses a path that URL parsing would change (dot segments, backslashes) before this point.
   */
  url: URL
  method: string
  headers: Headers
  /** The framework's own request object, handed to `authorized` as `request.req`. */
  req?: unknown
  /** How the app's router compares paths; default: exactly (case and trailing slash count). */
  routing?: PathRouting
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
  | { kind: "deny"; status: 401 | 403 | 302; json: boolean; location?: string; challenge?: string }

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

/**
 * A path as the app's router compares it: lower case unless routing is case-sensitive, a single trailing slash dropped
 * unless it is strict. `/ADMIN/` is then `/admin`, the route `app.get("/admin")` serves; `/admin//` stays as it is,
 * since no router takes it for `/admin`.
 */
function routedPath(pathname: string, routing: PathRouting): string {
  const trailing = !routing.strict && pathname.length > 1 && pathname.endsWith("/") && !pathname.endsWith("//")
  const path = trailing ? pathname.slice(0, -1) : pathname
  return routing.caseSensitive ? path : path.toLowerCase()
}

// RFC 3986 section 2.3: unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~". Percent-encoding one of them does not
// change what the path names (section 6.2.2.2), and a static file server decodes it: `/%61dmin` is `/admin`.
const ENCODED_OCTET = /%([0-9A-Fa-f]{2})/g
const UNRESERVED = /^[A-Za-z0-9\-._~]$/

/**
 * The path `authorized` decides on: the unreserved characters percent-decoded, then folded the way the app's router
 * compares paths (lower case unless routing is case-sensitive; a single trailing slash dropped unless it is strict),
 * so every spelling that names one route reads the same.
 *
 * @example
 * ```ts
 * canonicalPath("/ADMIN/%70anel/", { caseSensitive: false, strict: false }) // "/admin/panel"
 * ```
 */
export function canonicalPath(pathname: string, routing: PathRouting = exactRouting): string {
  const decoded = pathname.includes("%")
    ? pathname.replace(ENCODED_OCTET, (octet, hex: string) => {
        const char = String.fromCharCode(parseInt(hex, 16))
        return UNRESERVED.test(char) ? char : octet
      })
    : pathname
  return routedPath(decoded, routing)
}

/**
 * Whether the request goes to the auth handlers or to a sign-in/error page, judged on the path as the router compares
 * it (never decoded: `/%61uth/signin` does not reach `app.use("/auth")`): the base path itself, or an action of the
 * route table under it; a configured page by its exact path. A longer name (`/authx`, `/login-admin`) or an unknown
 * segment under the base (`/auth/admin`) is not exempt.
 */
function isExempt(pathname: string, config: ResolvedConfig, routing: PathRouting): boolean {
  const path = routedPath(pathname, routing)
  for (const page of [config.pages.signIn, config.pages.error]) {
    if (page !== undefined && path === routedPath(page.split(/[?#]/, 1)[0]!, routing)) return true
  }
  const base = routedPath(config.basePath, routing)
  if (base !== "" && (path === base || path === `${base}/`)) return true
  if (!path.startsWith(`${base}/`)) return false
  return isRoute(path.slice(base.length + 1).split("/", 1)[0]!)
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
    // tokens.md T1.3: with bearer sessions on, a request with an `Authorization` header is always an API client.
    if (status === 401 && config.session.bearer && request.headers.has("authorization")) {
      const challenge = carriedBearer(request.headers) ? 'Bearer error="invalid_token"' : "Bearer"
      return { kind: "deny", status, json: true, challenge }
    }
    const json = wantsJson(request.headers)
    if (status === 403 || json) return { kind: "deny", status, json }
    const page = options.signInUrl ?? config.pages.signIn ?? `${config.basePath}/signin`
    const query = new URLSearchParams({ callbackUrl: request.url.href })
    return { kind: "deny", status: 302, json, location: `${page}${page.includes("?") ? "&" : "?"}${query}` }
  }

  const authorized = config.userAuthorized
  const routing = request.routing ?? exactRouting
  if (authorized && !isExempt(request.url.pathname, config, routing)) {
    const nextUrl = new URL(request.url)
    nextUrl.pathname = canonicalPath(request.url.pathname, routing)
    let verdict = await authorized({
      auth: session,
      request: {
        url: request.url.href,
        nextUrl,
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

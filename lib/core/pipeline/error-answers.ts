/**
 * The pipeline's answers to failures: JSON errors in a route's form, the redirect to the error or sign-in page, the
 * outage answer to API clients, and the answer to a config that cannot be resolved.
 */
import {
  AuthError,
  CredentialsSignin,
  ErrorPageLoop,
  RateLimited,
  isClientSafeError,
  isServiceUnavailable,
} from "../../errors"
import type { ResolvedConfig } from "../kernel/config/types"
import { requestOrigin } from "../kernel/context"
import { pageHeaders, renderErrorPage } from "../kernel/pages"
import { parseActionAndProviderId, type AuthRequest } from "../kernel/request"
import { jsonHeaders } from "../kernel/response"
import type { RoutePolicy } from "../kernel/routes"
import type { AuthConfig } from "../kernel/types"
import { wantsJson } from "./access"

const pageActions = new Set(["signin", "signout", "error", "verify-request"])
const configErrorBody = {
  message: "There was a problem with the server configuration. Check the server logs for more information.",
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...jsonHeaders, ...headers } })
}

/**
 * The JSON error answer of a route that answers scripts or servers, in the row's `jsonErrorBody` form. The OAuth form
 * names only the error type, never the message (which may list configured provider ids).
 */
export function jsonError(form: RoutePolicy["jsonErrorBody"], error: unknown, status: number | undefined): Response {
  const type = error instanceof AuthError ? error.type : "AuthError"
  const headers = error instanceof AuthError ? { ...error.headers } : {}
  // One shape for a refusal by the limiter on every script route.
  if (error instanceof RateLimited) return json(429, { error: type }, headers)
  if (form === "oauth") {
    const body = { error: "invalid_request", error_description: type }
    return json(status ?? 400, body, { ...headers, "Cache-Control": "no-store" })
  }
  return json(status ?? 400, form === "type" ? { error: type } : null, headers)
}

/** A config error: 500 JSON, or for GET on a page action the Configuration page (or a redirect to `pages.error`). */
export function configErrorResponse(
  request: Request,
  error: Error,
  config: { basePath?: string; pages?: AuthConfig["pages"]; logger: { error(e: Error): void } },
): Response {
  config.logger.error(error)
  const url = new URL(request.url)
  const parsed = parseActionAndProviderId(url.pathname, (config.basePath ?? "/auth").replace(/\/+$/, ""))
  if (request.method !== "GET" || !parsed || !pageActions.has(parsed.action)) return json(500, configErrorBody)
  const errorPath = config.pages?.error
  const callbackUrl = url.searchParams.get("callbackUrl")
  if (errorPath && !callbackUrl?.startsWith(errorPath)) {
    return new Response(null, { status: 302, headers: { Location: `${url.origin}${errorPath}?error=Configuration` } })
  }
  if (errorPath) config.logger.error(new ErrorPageLoop("Error page loop"))
  const page = renderErrorPage({ error: "Configuration", origin: url.origin, signinUrl: url.origin, theme: {} })
  return new Response(page.html, { status: page.status, headers: { ...pageHeaders } })
}

/**
 * The answer to a request under the base path that names no route (`/auth/foo`): `400 "Bad request."` JSON for
 * scripts, as before, and for a browser navigation the built-in error page with the same status, a way to the
 * sign-in page and back to the site.
 */
export function unknownRouteAnswer(config: ResolvedConfig, url: URL, headers: Headers): Response {
  if (wantsJson(headers)) return json(400, "Bad request.")
  const { origin } = requestOrigin(config, url)
  const page = renderErrorPage({
    error: "UnknownRoute",
    origin,
    signinUrl: `${origin}${config.basePath}/signin`,
    theme: config.theme,
  })
  return new Response(page.html, { status: page.status, headers: { ...pageHeaders } })
}

export function errorRedirect(
  config: ResolvedConfig,
  authRequest: AuthRequest,
  error: unknown,
  returnRedirect: boolean,
): Response {
  const { origin } = requestOrigin(config, authRequest.url)
  const type = isClientSafeError(error) ? error.type : "Configuration"
  const params = new URLSearchParams({ error: type })
  if (error instanceof CredentialsSignin) params.set("code", error.code)
  // The sign-in page says how long to wait ("Try again in N minutes"); `Retry-After` says it to scripts.
  if (error instanceof RateLimited) params.set("retry", String(error.retryAfter))
  const headers = error instanceof RateLimited ? { ...error.headers } : {}
  const kind = error instanceof AuthError ? error.kind : "error"
  // A limited second step is answered on its own page, where the code form says how long to wait.
  const page =
    authRequest.action === "two-factor" && error instanceof RateLimited
      ? (config.pages.twoFactor ?? `${config.basePath}/two-factor`)
      : (config.pages[kind] ?? `${config.basePath}/${kind.toLowerCase()}`)
  const url = `${origin}${page}?${params}`
  if (returnRedirect) return json(200, { url }, headers)
  return new Response(null, {
    status: 302,
    headers: { ...headers, Location: url, "Referrer-Policy": "no-referrer" },
  })
}

/** Seconds an API client is asked to wait after an outage answer. */
export const OUTAGE_RETRY_AFTER = 5

/** Actions that answer only scripts (JSON), never a page: an outage there is always answered 503. */
const jsonOnlyActions: ReadonlySet<string> = new Set(["session", "csrf", "providers", "passkeys", "sessions"])

/**
 * Whether the request comes from an API client rather than a browser navigation: it asks for JSON and not HTML, or
 * sends `X-Auth-Return-Redirect` (the Auth.js client), or names a JSON-only route.
 */
export function isApiClient(headers: Headers, action: string): boolean {
  // The OP is the client of back-channel logout, and its contract is 400 `application_error`.
  if (action === "backchannel-logout") return false
  if (jsonOnlyActions.has(action) || headers.has("X-Auth-Return-Redirect")) return true
  const accept = headers.get("accept")?.toLowerCase() ?? ""
  return accept.includes("application/json") && !accept.includes("text/html")
}

/**
 * The answer to an API client while a service Gatehouse depends on is down (issue 17): `503
 * {"error":"ServiceUnavailable"}` with `Retry-After` and `no-store`; under `X-Auth-Return-Redirect` the body also
 * carries the error page `url`, which the Auth.js client reads.
 */
export function serviceUnavailable(url?: string): Response {
  const body = url === undefined ? { error: "ServiceUnavailable" } : { error: "ServiceUnavailable", url }
  return json(503, body, { "Retry-After": String(OUTAGE_RETRY_AFTER), "Cache-Control": "no-store" })
}

/** Statuses of the token sign-in refusals (tokens.md T1.4) by error type; others use the error's status, else 400. */
const tokenStatus: Readonly<Record<string, number>> = {
  CredentialsSignin: 401,
  AccessDenied: 403,
  TwoFactorRequired: 401,
  AccountBanned: 403,
  EmailNotVerified: 403,
  Verification: 401,
}

/**
 * The answer to a token sign-in that failed (tokens.md T1.4): always JSON with `no-store`, never a redirect or a
 * cookie. `CredentialsSignin` carries its `code`; a limiter refusal is 429 with `Retry-After`.
 *
 * @example
 * ```ts
 * return tokenSignInError(new CredentialsSignin()) // 401 {"error":"CredentialsSignin","code":"credentials"}
 * ```
 */
export function tokenSignInError(error: unknown): Response {
  const headers = { "Cache-Control": "no-store", Pragma: "no-cache" }
  if (error instanceof RateLimited) return json(429, { error: "RateLimited" }, { ...error.headers, ...headers })
  if (error instanceof CredentialsSignin) return json(401, { error: error.type, code: error.code }, headers)
  if (isServiceUnavailable(error)) return serviceUnavailable()
  if (!(error instanceof AuthError)) return json(500, { error: "Configuration" }, headers)
  if (error.status === 400 || error.status === 413) return json(error.status, { error: "InvalidRequest" }, headers)
  const known = tokenStatus[error.type]
  if (known !== undefined) return json(known, { error: error.type }, headers)
  if (!isClientSafeError(error)) return json(500, { error: "Configuration" }, headers)
  return json(error.status ?? 400, { error: error.type }, headers)
}

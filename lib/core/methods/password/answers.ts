/**
 * How the Password routes answer: JSON mode (a JSON body, or `Accept` preferring JSON) gets `200 {"ok":true}` and
 * `{"error": type[, "code"]}` with the error's status; form mode gets redirects, an error going back to the page it
 * came from with `error=<Type>[&code=<code>]`. Every answer carries `Cache-Control: no-store`.
 */
import {
  AuthError,
  InvalidEmail,
  isClientSafeError,
  MissingCSRF,
  PasswordPolicy,
  RateLimited,
  SessionRequired,
} from "../../../errors"
import type { ResolvedConfig } from "../../kernel/config/types"
import { requestOrigin, type RequestContext } from "../../kernel/context"
import type { AuthRequest } from "../../kernel/request"
import { jsonHeaders, type AuthResult } from "../../kernel/response"

/** The Password routes other than sign-in. */
export const passwordActions = new Set([
  "signup",
  "verify-email",
  "resend-verification",
  "forgot-password",
  "reset-password",
  "change-password",
  "set-password",
])

const noStore = { "Cache-Control": "no-store" }

/**
 * Whether the request is in JSON mode: its body is JSON, or it asks for JSON and not HTML.
 *
 * @example
 * ```ts
 * jsonMode(ctx.request.headers) // true for `Content-Type: application/json`
 * ```
 */
export function jsonMode(headers: Headers): boolean {
  const type = (headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase()
  if (type === "application/json") return true
  const accept = headers.get("accept")?.toLowerCase() ?? ""
  return accept.includes("application/json") && !accept.includes("text/html")
}

/** The success answer: JSON `{"ok":true}` (plus `extra`), or a redirect to `location` in form mode. */
export function okAnswer(ctx: RequestContext, location: string): AuthResult {
  if (jsonMode(ctx.request.headers)) {
    return { status: 200, headers: { ...jsonHeaders, ...noStore }, body: { ok: true } }
  }
  return { redirect: location, headers: { ...noStore } }
}

/** `{"error": type}` plus `code` where the type has codes; `SessionRequired` answers the session routes' body. */
function jsonBody(error: AuthError): Record<string, string> {
  if (error instanceof SessionRequired) return { error: "Unauthorized" }
  const body: Record<string, string> = { error: error.type }
  if (error instanceof PasswordPolicy || error instanceof InvalidEmail) body.code = error.code
  return body
}

function field(request: AuthRequest, name: string): string | undefined {
  const value = request.body?.[name] ?? request.query[name]
  return typeof value === "string" ? value : undefined
}

/** Where a form error goes back to, by route (`null`: the usual answer of the pipeline). */
function formPage(config: ResolvedConfig, request: AuthRequest, error: AuthError, origin: string, callbackUrl: string) {
  const base = `${origin}${config.basePath}`
  const withCallback = (path: string) => {
    const url = new URL(path)
    const callback = field(request, "callbackUrl")
    if (callback) url.searchParams.set("callbackUrl", callback)
    return url
  }
  switch (request.action) {
    case "signup":
      return withCallback(`${config.pages.signUp ? `${origin}${config.pages.signUp}` : `${base}/signup`}`)
    case "forgot-password":
    case "resend-verification":
      return new URL(`${base}/forgot-password`)
    case "reset-password": {
      if (error.type === "Verification") return new URL(`${base}/forgot-password`)
      const url = new URL(`${base}/reset-password`)
      url.searchParams.set("token", field(request, "token") ?? "")
      url.searchParams.set("email", field(request, "email") ?? "")
      return url
    }
    case "verify-email":
      return new URL(config.pages.signIn ? `${origin}${config.pages.signIn}` : `${base}/signin`)
    case "change-password":
    case "set-password": {
      if (error instanceof SessionRequired) {
        const url = new URL(config.pages.signIn ? `${origin}${config.pages.signIn}` : `${base}/signin`)
        url.searchParams.set("callbackUrl", callbackUrl)
        return url
      }
      return new URL(callbackUrl)
    }
    default:
      return null
  }
}

/**
 * The answer to an error of a Password route, or `undefined` for the pipeline's usual answer (a form CSRF failure
 * goes to the sign-in page, an error that is not client-safe to the error page).
 *
 * @example
 * ```ts
 * const response = await passwordErrorAnswer(config, authRequest, error, returnRedirect)
 * ```
 */
export async function passwordErrorAnswer(
  config: ResolvedConfig,
  request: AuthRequest,
  error: unknown,
  returnRedirect: boolean,
): Promise<Response | undefined> {
  if (!passwordActions.has(request.action) || !(error instanceof AuthError)) return undefined
  const headers: Record<string, string> = { ...noStore, ...error.headers }
  if (jsonMode(request.headers) && !returnRedirect) {
    const status = error instanceof RateLimited ? 429 : error instanceof MissingCSRF ? 403 : (error.status ?? 400)
    return new Response(JSON.stringify(jsonBody(error)), { status, headers: { ...jsonHeaders, ...headers } })
  }
  if (error instanceof MissingCSRF || !isClientSafeError(error)) return undefined
  const { origin } = requestOrigin(config, request.url)
  const candidate = field(request, "callbackUrl")
  const callbackUrl = candidate ? await config.callbacks.redirect({ url: candidate, baseUrl: origin }) : origin
  const url = formPage(config, request, error, origin, callbackUrl)
  if (!url) return undefined
  if (!(error instanceof SessionRequired)) {
    url.searchParams.set("error", error.type)
    if (error instanceof PasswordPolicy || error instanceof InvalidEmail) url.searchParams.set("code", error.code)
    if (error instanceof RateLimited) url.searchParams.set("retry", String(error.retryAfter))
  }
  if (returnRedirect) {
    return new Response(JSON.stringify({ url: url.href }), { status: 200, headers: { ...jsonHeaders, ...headers } })
  }
  return new Response(null, {
    status: 302,
    headers: { ...headers, Location: url.href, "Referrer-Policy": "no-referrer" },
  })
}

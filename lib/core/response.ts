/** Turns an action's result and the request's cookie jar into a Web `Response` (or the raw internal result). */
import type { CookieJar, OutgoingCookie } from "./cookies/jar"

/** What an action returns; it never builds a Response itself. */
export interface AuthResult {
  status?: number
  headers?: Record<string, string>
  /** JSON-serialised when the content type is `application/json`, else sent as text. */
  body?: unknown
  /** A redirect target: status 302 with this `Location`. */
  redirect?: string
}

/** The internal result handed to framework authors with the `raw` marker. */
export interface ResponseInternal extends AuthResult {
  cookies: OutgoingCookie[]
}

export const noCacheHeaders = {
  "Cache-Control": "private, no-cache, no-store",
  Expires: "0",
  Pragma: "no-cache",
} as const

export const jsonHeaders = { "Content-Type": "application/json" } as const

/**
 * Builds the Response of a result.
 *
 * @example
 * ```ts
 * toResponse({ redirect: "https://app.example/" }, jar)
 * ```
 */
export function toResponse(result: AuthResult, jar: CookieJar): Response {
  const headers = new Headers(result.headers)
  if (result.redirect) {
    headers.set("Location", result.redirect)
    // A callback URL can carry a code, state or email token: never leak it to the next site (BCP-08, ML-7).
    headers.set("Referrer-Policy", "no-referrer")
  }
  for (const cookie of jar.toHeaders()) headers.append("Set-Cookie", cookie)
  const status = result.redirect ? 302 : (result.status ?? 200)
  let body: string | null = null
  if (result.body !== undefined) {
    body = headers.get("Content-Type") === "application/json" ? JSON.stringify(result.body) : String(result.body)
  }
  return new Response(status === 204 || status === 304 ? null : body, { status, headers })
}

/**
 * The raw internal form of a result.
 *
 * @example
 * ```ts
 * toInternal({ status: 200, body: {} }, jar).cookies
 * ```
 */
export function toInternal(result: AuthResult, jar: CookieJar): ResponseInternal {
  return { ...result, status: result.redirect ? 302 : (result.status ?? 200), cookies: jar.list() }
}

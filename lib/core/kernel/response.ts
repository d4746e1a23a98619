/** Turns an action's result and the request's cookie jar into a Web `Response` (or the raw internal result). */
import type { AuthError } from "../../errors"
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

/**
 * What `Auth()` with the `raw` marker throws: the `AuthError`, with `cookies` when the error answer it stands for
 * carries some (the deletions, and what is kept on an error, such as a two-factor trust handed back), in the form of
 * {@link ResponseInternal.cookies}. The framework writes them, as it writes a result's, before it handles the error.
 */
export type RawAuthError = AuthError & { cookies?: OutgoingCookie[] }

/**
 * `error` as raw mode throws it: with the cookies of `jar` (after `discardSets`) as `cookies` when there are any, on a
 * copy of the same class, message, code, cause and stack, since one error object may reach concurrent requests (a
 * shared rejected promise) and each request's cookies are its own.
 *
 * @example
 * ```ts
 * throw withErrorCookies(error, jar)
 * ```
 */
export function withErrorCookies(error: AuthError, jar: CookieJar): RawAuthError {
  const cookies = jar.list()
  if (cookies.length === 0) return error
  const copy = Object.create(Object.getPrototypeOf(error), Object.getOwnPropertyDescriptors(error)) as RawAuthError
  copy.cookies = cookies
  return copy
}

export const noCacheHeaders = {
  "Cache-Control": "private, no-cache, no-store",
  Expires: "0",
  Pragma: "no-cache",
} as const

export const jsonHeaders = { "Content-Type": "application/json" } as const

/** A result ready for the wire: status, header pairs (one per `Set-Cookie`), and the body text. */
export interface SerializedResult {
  status: number
  headers: [string, string][]
  body: string | null
}

/**
 * Serialises a result and the request's cookies: `Location` for redirects (302), one `Set-Cookie` per cookie, the
 * body JSON-encoded when the content type is `application/json`.
 *
 * @example
 * ```ts
 * serializeResult({ redirect: "https://app.example/" }, jar).status // 302
 * ```
 */
export function serializeResult(result: AuthResult, jar: CookieJar): SerializedResult {
  const headers = headerPairs(result.headers)
  if (result.redirect) {
    headers.push(["Location", result.redirect])
    // A callback URL can carry a code, state or email token: never leak it to the next site (BCP-08, ML-7).
    headers.push(["Referrer-Policy", "no-referrer"])
  }
  for (const cookie of jar.toHeaders()) headers.push(["Set-Cookie", cookie])
  const status = result.redirect ? 302 : (result.status ?? 200)
  let body: string | null = null
  if (result.body !== undefined && status !== 204 && status !== 304) {
    body = result.headers?.["Content-Type"] === "application/json" ? JSON.stringify(result.body) : String(result.body)
  }
  return { status, headers, body }
}

/**
 * The pairs of a result's headers, a new array each time. A frozen headers object (the shared headers of an answer
 * given on every request, such as GET /session's) cannot change: its pairs are made once and copied.
 */
const frozenPairs = new WeakMap<object, readonly [string, string][]>()

function headerPairs(headers: AuthResult["headers"]): [string, string][] {
  if (headers === undefined) return []
  if (!Object.isFrozen(headers)) return Object.entries(headers)
  let pairs = frozenPairs.get(headers)
  if (pairs === undefined) {
    pairs = Object.entries(headers).map((pair) => Object.freeze(pair) as [string, string])
    frozenPairs.set(headers, pairs)
  }
  return pairs.slice()
}

/**
 * Builds the Response of a result.
 *
 * @example
 * ```ts
 * toResponse({ redirect: "https://app.example/" }, jar)
 * ```
 */
export function toResponse(result: AuthResult, jar: CookieJar): Response {
  const { status, headers, body } = serializeResult(result, jar)
  return new Response(body, { status, headers })
}

/**
 * With `X-Auth-Return-Redirect`, a redirect becomes `200 {"url": <location>}` keeping its other headers (and cookies).
 *
 * @example
 * ```ts
 * asReturnedRedirect({ redirect: "https://app.example/" }).body // { url: "https://app.example/" }
 * ```
 */
export function asReturnedRedirect(result: AuthResult): AuthResult {
  if (!result.redirect) return result
  return {
    status: 200,
    headers: {
      ...result.headers,
      Location: result.redirect,
      "Referrer-Policy": "no-referrer",
      "Content-Type": "application/json",
    },
    body: { url: result.redirect },
  }
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

/**
 * Bearer sessions (tokens.md T1): what counts as a request that "carries a bearer", and a sign-in that asks for its
 * session as a token (`X-Auth-Return-Token: 1`). Data only: the one reader of the token is the session door.
 */

/** The most characters a bearer token may have (T1.3 rule 1). */
export const MAX_BEARER_LENGTH = 8192

const TOKEN = /^[A-Za-z0-9._~+/-]+=*$/
const SCHEME = /^bearer(?: +|$)/i

/**
 * The bearer a request carries: `{ token }` for a well-formed `Authorization: Bearer <token>`, `{ token: null }` for a
 * `Bearer` header that is malformed (several values, a bad token, too long), and `undefined` when there is no
 * `Authorization` header or its scheme is another one (`Basic`, `DPoP`): then cookies decide as before.
 *
 * @example
 * ```ts
 * carriedBearer(new Headers({ authorization: "Bearer abc" })) // { token: "abc" }
 * ```
 */
export function carriedBearer(headers: Pick<Headers, "get">): { token: string | null } | undefined {
  const value = headers.get("authorization")
  if (value === null) return undefined
  // Several `Authorization` headers arrive joined with ", ": a comma is never part of a valid token.
  if (!SCHEME.test(value.trimStart())) {
    return /(^|,\s*)bearer(\s|$)/i.test(value) ? { token: null } : undefined
  }
  const token = value.trim().replace(/^bearer +/i, "")
  if (token.length === 0 || token.length > MAX_BEARER_LENGTH || !TOKEN.test(token)) return { token: null }
  return { token }
}

/**
 * Whether a request asks for its sign-in to be answered with a session token in JSON instead of a cookie: bearer
 * sessions on, `X-Auth-Return-Token: 1`, a POST. (The route decides whether it is a sign-in that can.)
 *
 * @example
 * ```ts
 * if (asksForToken(config, request)) ...
 * ```
 */
export function asksForToken(
  config: { readonly session: { readonly bearer?: boolean } },
  request: { readonly method: string; readonly headers: Pick<Headers, "get"> },
): boolean {
  return (
    config.session.bearer === true && request.method === "POST" && request.headers.get("x-auth-return-token") === "1"
  )
}

/** The headers of every token answer (T1.4): no caching anywhere. */
export const tokenAnswerHeaders: Readonly<Record<string, string>> = Object.freeze({
  "Content-Type": "application/json",
  "Cache-Control": "no-store",
  Pragma: "no-cache",
})

/**
 * Whether this request is a sign-in answered with a session token (T1.4): it asks for one ({@link asksForToken}) and
 * is a POST to the callback of a provider that completes inside one POST (credentials, password).
 *
 * @example
 * ```ts
 * const tokenAnswer = isTokenSignIn(config, authRequest)
 * ```
 */
export function isTokenSignIn(
  config: {
    readonly session: { readonly bearer?: boolean }
    readonly providerById: ReadonlyMap<string, { readonly type: string }>
  },
  request: {
    readonly method: string
    readonly action: string
    readonly providerId?: string
    readonly headers: Pick<Headers, "get">
  },
): boolean {
  if (!asksForToken(config, request) || request.action !== "callback" || request.providerId === undefined) return false
  const type = config.providerById.get(request.providerId)?.type
  return type === "credentials" || type === "password"
}

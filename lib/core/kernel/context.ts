/** The per-request context: the resolved config plus everything derived from this one request. */
import { InvalidProvider } from "../../errors"
import type { LoggerInstance } from "../../logger"
import type { ResolvedConfig } from "./config/types"
import type { InternalProvider } from "./config/providers"
import { policyOf, type AuthAction } from "./routes"
import { carriedBearer } from "./bearer"
import { CookieJar } from "./cookies/jar"
import { resolveCsrf } from "./csrf"
import type { AuthRequest } from "./request"
import type { SessionCache } from "./token-cache"
import type { CookiesOptions } from "./types"

export interface RequestContext {
  readonly config: ResolvedConfig
  readonly request: AuthRequest
  /**
   * The Web request as received, for callbacks that take one (`rateLimit.ip(request)`); built on the first call, as
   * most requests never need it.
   */
  readonly webRequest: () => Request
  /** Origin of every generated URL: `AUTH_URL`'s when set, else the request's. */
  readonly origin: string
  readonly secure: boolean
  readonly cookies: CookiesOptions
  readonly jar: CookieJar
  readonly logger: LoggerInstance
  readonly provider?: InternalProvider
  /** The decrypted-session cache of the runtime serving this request, when it has one. */
  readonly sessionCache?: SessionCache
  readonly csrfToken: string
  /** A POST carried the CSRF token of its cookie, CSRF checks are skipped by config, or the call is trusted. */
  readonly csrfVerified: boolean
  readonly callbackUrl: string
  /**
   * The client IP the framework layer resolved (Express: `req.ip` or `rateLimit.ip(req)`), `null` when it has none;
   * `undefined`: the core asks `rateLimit.ip(request)`.
   */
  readonly clientIp?: string | null
  /** A server-side call that passed its origin guard (made by server code, not by an HTTP client). */
  readonly trusted?: boolean
  /**
   * The bearer session this request carries on a route that accepts one (tokens.md T1.2), with `session.bearer` on:
   * `{ token: null }` for a malformed `Bearer` header (no session, never the cookie). Read only by the session door.
   */
  readonly bearer?: { readonly token: string | null }
  /** A sign-in asked to be answered with its session token in JSON (`X-Auth-Return-Token: 1`), never a cookie. */
  readonly tokenAnswer?: boolean
}

/** Actions whose second segment names an operation (`passkeys/rename`, `sessions/revoke`), not a provider. */
const operationActions: ReadonlySet<string> = new Set(["passkeys", "sessions", "account", "admin"])

declare const trustedCallBrand: unique symbol

/**
 * The mark of a server-side call that passed its origin guard (`signIn`, `signOut` and `unstable_update` from server
 * code): its context counts as CSRF-verified. Only {@link trustedCall} makes one, and only as an argument of
 * {@link createContext}: nothing in an HTTP request can ask to be trusted.
 */
export type TrustedCall = { readonly [trustedCallBrand]: true }

const trustedCalls = new WeakSet<object>()

/**
 * A new {@link TrustedCall} mark. For the in-process server calls alone (an architecture test keeps it so).
 *
 * @example
 * ```ts
 * const ctx = await createContext(config, authRequest, { webRequest, trusted: trustedCall() })
 * ```
 */
export function trustedCall(): TrustedCall {
  const mark = Object.freeze({}) as TrustedCall
  trustedCalls.add(mark)
  return mark
}

/** What a request context is built with besides the config and the parsed request. */
export interface ContextOptions {
  /** The Web request, or a function building it on first use (called at most once). */
  webRequest: Request | (() => Request)
  /** The decrypted-session cache of the runtime serving the request. */
  sessionCache?: SessionCache
  /** The client IP the framework layer resolved, `null` for none; unset, `rateLimit.ip(request)` is asked. */
  clientIp?: string | null
  /** A server-side call that passed its origin guard. */
  trusted?: TrustedCall
  /** A sign-in answered with a session token (`X-Auth-Return-Token: 1`, tokens.md T1.4). */
  tokenAnswer?: boolean
}

/**
 * Whether a request's cookies are the secure set (`__Secure-`/`__Host-` names, `Secure`): `useSecureCookies` when
 * set, else whether the app origin is https (`AUTH_URL`'s when set, else the request's own scheme as the edge
 * resolved it). The one rule every edge and server call uses.
 *
 * @example
 * ```ts
 * const { secure, cookies } = cookieSet(config, requestIsHttps)
 * ```
 */
export function cookieSet(
  config: Pick<ResolvedConfig, "useSecureCookies" | "authUrl" | "cookies">,
  requestIsHttps: boolean,
): { secure: boolean; cookies: CookiesOptions } {
  const secure = config.useSecureCookies ?? (config.authUrl ? config.authUrl.protocol === "https:" : requestIsHttps)
  return { secure, cookies: secure ? config.cookies.secure : config.cookies.insecure }
}

/**
 * The origin and cookie set a request uses.
 *
 * @example
 * ```ts
 * const { origin, secure, cookies } = requestOrigin(config, new URL(request.url))
 * ```
 */
export function requestOrigin(
  config: ResolvedConfig,
  url: URL,
): { origin: string; secure: boolean; cookies: CookiesOptions } {
  const origin = config.authUrl?.origin ?? url.origin
  const { secure, cookies } = cookieSet(config, url.protocol === "https:")
  return { origin, secure, cookies }
}

/**
 * Absolute URL of an action under this request's origin and the base path.
 *
 * @example
 * ```ts
 * actionUrl(ctx, "signin", "github") // "https://app.example/auth/signin/github"
 * ```
 */
export function actionUrl(ctx: Pick<RequestContext, "origin" | "config">, action: AuthAction, providerId?: string) {
  return `${ctx.origin}${ctx.config.basePath}/${action}${providerId ? `/${encodeURIComponent(providerId)}` : ""}`
}

/**
 * Builds the context once, frozen: finds the provider, reads or mints the CSRF token, and resolves the callback URL
 * through the `redirect` callback. The CSRF and callback-url cookies it sets are the "base cookies" of every response.
 *
 * @example
 * ```ts
 * const ctx = await createContext(config, authRequest, { webRequest: request, clientIp: req.ip })
 * ```
 */
export async function createContext(
  config: ResolvedConfig,
  request: AuthRequest,
  options: ContextOptions,
): Promise<RequestContext> {
  const { origin, secure, cookies } = requestOrigin(config, request.url)
  let provider: InternalProvider | undefined
  // `passkeys/<rename|delete>` and `sessions/revoke`: the second segment names an operation, not a provider.
  if (request.providerId !== undefined && !operationActions.has(request.action)) {
    provider = config.providerById.get(request.providerId)
    if (!provider) {
      const ids = [...config.providerById.keys()]
      throw new InvalidProvider(
        `Provider "${request.providerId}" not found; the configured ids are: ${ids.join(", ")}`,
        {
          cause: { provider: request.providerId, available: [...config.providerById.keys()] },
        },
      )
    }
  }
  const jar = new CookieJar()
  const trusted = options.trusted !== undefined && trustedCalls.has(options.trusted)
  const tokenAnswer = options.tokenAnswer === true
  const bearer = config.session.bearer && policyOf(request.action).bearer ? carriedBearer(request.headers) : undefined
  let csrfToken = ""
  let csrfVerified: boolean
  let callbackUrl = origin
  if (bearer || tokenAnswer) {
    // A request identified by its bearer (T1.3), or a token sign-in (T1.4), reads no CSRF or callback-url cookie and
    // sets none: its identity is the bearer or nobody, and nothing lands in a browser, so there is no CSRF to prevent.
    csrfVerified = true
  } else if (request.action === "providers" || request.action === "backchannel-logout") {
    // The back-channel receiver is called server to server: it reads no CSRF or callback-url cookie and sets none.
    csrfVerified = trusted
  } else {
    csrfVerified = trusted || config.skipCSRFCheck
    if (!config.skipCSRFCheck) {
      const csrf = resolveCsrf({
        secret: config.secret,
        cookieValue: request.cookies[cookies.csrfToken.name],
        isPost: request.method === "POST",
        bodyToken: request.body?.csrfToken,
      })
      csrfToken = csrf.token
      csrfVerified = trusted || csrf.verified
      if (csrf.cookie) jar.set(cookies.csrfToken.name, csrf.cookie, cookies.csrfToken.options)
    }
    const fromRequest = request.body?.callbackUrl ?? request.query.callbackUrl
    const fromCookie = request.cookies[cookies.callbackUrl.name]
    const candidate = typeof fromRequest === "string" && fromRequest ? fromRequest : fromCookie
    if (candidate) callbackUrl = await config.callbacks.redirect({ url: candidate, baseUrl: origin })
    if (callbackUrl !== fromCookie) jar.set(cookies.callbackUrl.name, callbackUrl, cookies.callbackUrl.options)
  }
  const { webRequest } = options
  let web: Request | undefined
  // One literal with every member (one object, no copy: keys added to a spread copy are slow, with-keys.ts).
  return Object.freeze({
    config,
    request,
    webRequest: () => (web ??= typeof webRequest === "function" ? webRequest() : webRequest),
    origin,
    secure,
    cookies,
    jar,
    logger: config.logger,
    provider,
    sessionCache: options.sessionCache,
    clientIp: options.clientIp,
    bearer,
    trusted,
    tokenAnswer,
    csrfToken,
    csrfVerified,
    callbackUrl,
  })
}

/**
 * A copy of the request whose body is the parsed form or JSON fields as JSON (the original body was read to parse
 * it): what `authorize()` and `sendVerificationRequest()` receive, readable with `await request.json()`.
 *
 * @example
 * ```ts
 * const credentials = await requestWithParsedBody(ctx).json()
 * ```
 */
export function requestWithParsedBody(ctx: Pick<RequestContext, "request">): Request {
  const headers = new Headers(ctx.request.headers)
  headers.set("content-type", "application/json")
  headers.delete("content-length")
  return new Request(ctx.request.url, {
    method: ctx.request.method,
    headers,
    body: JSON.stringify(ctx.request.body ?? {}),
  })
}

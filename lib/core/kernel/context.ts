/** The per-request context: the resolved config plus everything derived from this one request. */
import { InvalidProvider } from "../../errors"
import type { LoggerInstance } from "../../logger"
import type { ResolvedConfig } from "./config/types"
import type { InternalProvider } from "./config/providers"
import type { AuthAction } from "./routes"
import { CookieJar } from "./cookies/jar"
import { resolveCsrf } from "./csrf"
import type { AuthRequest } from "./request"
import type { SessionCache } from "../session/cache"
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
  sessionCache?: SessionCache
  csrfToken: string
  csrfVerified: boolean
  callbackUrl: string
  /**
   * The client IP the framework layer resolved (Express: `req.ip` or `rateLimit.ip(req)`), `null` when it has none;
   * left unset, the core asks `rateLimit.ip(request)`.
   */
  clientIp?: string | null
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
  const secure = config.useSecureCookies ?? origin.startsWith("https:")
  return { origin, secure, cookies: secure ? config.cookies.secure : config.cookies.insecure }
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
 * Builds the context: finds the provider, reads or mints the CSRF token, and resolves the callback URL through the
 * `redirect` callback. `webRequest` may be a function that builds it: called on the first `ctx.webRequest()`, once.
 * The CSRF and callback-url cookies it sets are the "base cookies" of every response.
 *
 * @example
 * ```ts
 * const ctx = await createContext(config, authRequest, request)
 * ```
 */
export async function createContext(
  config: ResolvedConfig,
  request: AuthRequest,
  webRequest: Request | (() => Request),
): Promise<RequestContext> {
  const { origin, secure, cookies } = requestOrigin(config, request.url)
  let provider: InternalProvider | undefined
  // `passkeys/<rename|delete>` and `sessions/revoke`: the second segment names an operation, not a provider.
  if (request.providerId !== undefined && request.action !== "passkeys" && request.action !== "sessions") {
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
  let web: Request | undefined
  const ctx: RequestContext = {
    config,
    request,
    webRequest: () => (web ??= typeof webRequest === "function" ? webRequest() : webRequest),
    origin,
    secure,
    cookies,
    jar,
    logger: config.logger,
    provider,
    csrfToken: "",
    csrfVerified: false,
    callbackUrl: origin,
  }
  // The back-channel receiver is called server to server: it reads no CSRF or callback-url cookie and sets none.
  if (request.action === "providers" || request.action === "backchannel-logout") return ctx

  if (config.skipCSRFCheck) {
    ctx.csrfVerified = true
  } else {
    const csrf = resolveCsrf({
      secret: config.secret,
      cookieValue: request.cookies[cookies.csrfToken.name],
      isPost: request.method === "POST",
      bodyToken: request.body?.csrfToken,
    })
    ctx.csrfToken = csrf.token
    ctx.csrfVerified = csrf.verified
    if (csrf.cookie) jar.set(cookies.csrfToken.name, csrf.cookie, cookies.csrfToken.options)
  }

  const fromRequest = request.body?.callbackUrl ?? request.query.callbackUrl
  const fromCookie = request.cookies[cookies.callbackUrl.name]
  const candidate = typeof fromRequest === "string" && fromRequest ? fromRequest : fromCookie
  if (candidate) ctx.callbackUrl = await config.callbacks.redirect({ url: candidate, baseUrl: origin })
  if (ctx.callbackUrl !== fromCookie) {
    jar.set(cookies.callbackUrl.name, ctx.callbackUrl, cookies.callbackUrl.options)
  }
  return ctx
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

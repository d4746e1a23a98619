/** The per-request context: the resolved config plus everything derived from this one request. */
import { InvalidProvider } from "../errors"
import type { LoggerInstance } from "../logger"
import type { ResolvedConfig } from "./config/resolve"
import type { InternalProvider } from "./config/providers"
import type { AuthAction } from "./config/env"
import { CookieJar } from "./cookies/jar"
import { resolveCsrf } from "./csrf"
import type { AuthRequest } from "./request"
import type { CookiesOptions } from "./types"

export interface RequestContext {
  readonly config: ResolvedConfig
  readonly request: AuthRequest
  /** The Web request as received (for `authorize()` and email requests). */
  readonly webRequest: Request
  /** Origin of every generated URL: `AUTH_URL`'s when set, else the request's. */
  readonly origin: string
  readonly secure: boolean
  readonly cookies: CookiesOptions
  readonly jar: CookieJar
  readonly logger: LoggerInstance
  readonly provider?: InternalProvider
  csrfToken: string
  csrfVerified: boolean
  callbackUrl: string
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
 * `redirect` callback. The CSRF and callback-url cookies it sets are the "base cookies" of every response.
 *
 * @example
 * ```ts
 * const ctx = await createContext(config, authRequest, request)
 * ```
 */
export async function createContext(
  config: ResolvedConfig,
  request: AuthRequest,
  webRequest: Request,
): Promise<RequestContext> {
  const { origin, secure, cookies } = requestOrigin(config, request.url)
  let provider: InternalProvider | undefined
  if (request.providerId !== undefined) {
    provider = config.providerById.get(request.providerId)
    if (!provider) {
      throw new InvalidProvider("Provider not found", {
        cause: { provider: request.providerId, available: [...config.providerById.keys()] },
      })
    }
  }
  const jar = new CookieJar()
  const ctx: RequestContext = {
    config,
    request,
    webRequest,
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
  if (request.action === "providers") return ctx

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
export function requestWithParsedBody(ctx: Pick<RequestContext, "webRequest" | "request">): Request {
  const headers = new Headers(ctx.webRequest.headers)
  headers.set("content-type", "application/json")
  headers.delete("content-length")
  return new Request(ctx.request.url, {
    method: ctx.webRequest.method,
    headers,
    body: JSON.stringify(ctx.request.body ?? {}),
  })
}

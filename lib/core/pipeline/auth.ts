/** `Auth(request, config)`: the core pipeline from a Web Request to a Web Response. */
import {
  AuthError,
  CredentialsSignin,
  InvalidCallbackUrl,
  InvalidRequest,
  RateLimited,
  isServiceUnavailable,
} from "../../errors"
import { createLogger } from "../../logger"
import type { ResolvedConfig } from "../kernel/config/types"
import { sharedRuntime, type ConfigRuntime } from "./gatehouse"
import { createContext, requestOrigin } from "../kernel/context"
import { parseRequestSource, sourceOfRequest, type AuthRequest, type RequestSource } from "../kernel/request"
import { isValidCallbackUrl } from "../kernel/redirect"
import { route } from "./router"
import { policyOf } from "../kernel/routes"
import {
  asReturnedRedirect,
  serializeResult,
  toInternal,
  toResponse,
  type AuthResult,
  type ResponseInternal,
  type SerializedResult,
} from "../kernel/response"
import { CookieJar, serializeCookie } from "../kernel/cookies/jar"
import type { CookielessAnswer, CookielessAnswers } from "./cookieless"
import { resolveCsrf } from "../kernel/csrf"
import type { SessionCache } from "../session/cache"
import { configErrorResponse, errorRedirect, isApiClient, json, jsonError, serviceUnavailable } from "./error-answers"
import type { raw } from "../../symbols"
import type { AuthConfig, Awaitable } from "../kernel/types"

export type LazyAuthConfig = (request: Request) => Awaitable<AuthConfig>

type Outcome = { result: AuthResult; jar: CookieJar } | Response

/** What a framework layer's runtime lends the core for one request. */
export interface HandleOptions {
  /** The decrypted-session cache of the runtime that owns `config`. */
  sessionCache?: SessionCache
  /** The runtime's store of cookie-less session answers ({@link cookielessSessionRead} keeps one there). */
  cookielessAnswers?: CookielessAnswers
  /**
   * The client IP the framework resolved (Express: `req.ip`, which honours `trust proxy`), `null` for none. Unset:
   * `rateLimit.ip(request)` is asked.
   */
  clientIp?: string | null
}

/**
 * A request for the core pipeline: what it reads, and the Web `Request` user callbacks receive (`authorize(credentials,
 * request)`, `rateLimit.ip(request)`), built only when one asks for it.
 */
export interface PipelineRequest {
  source: RequestSource
  webRequest: Request | (() => Request)
}

async function run(input: PipelineRequest, config: ResolvedConfig, options: HandleOptions): Promise<Outcome> {
  let authRequest: AuthRequest
  try {
    authRequest = await parseRequestSource(input.source, config.basePath)
  } catch (error) {
    config.logger.error(error as Error)
    return json(400, "Bad request.")
  }
  return answer(authRequest, input.webRequest, config, options)
}

/** The pipeline after parsing: callback-URL rules, context, route, and the error answers. */
async function answer(
  authRequest: AuthRequest,
  webRequest: PipelineRequest["webRequest"],
  config: ResolvedConfig,
  options: HandleOptions,
): Promise<Outcome> {
  const { logger } = config
  const { origin, cookies } = requestOrigin(config, authRequest.url)
  // RD-12: an invalid explicit `callbackUrl` is the caller's mistake (400), not a server error.
  const explicit = authRequest.query.callbackUrl
  if (explicit && !isValidCallbackUrl(explicit, origin)) {
    logger.error(new InvalidCallbackUrl("Invalid callback URL", { cause: { callbackUrl: explicit } }))
    return json(400, { message: "Invalid callbackUrl." })
  }
  // RD-13: a tossed callback-url cookie must not break every route for that browser: it is ignored, and the context
  // overwrites it with a valid value.
  const tossed = authRequest.cookies[cookies.callbackUrl.name]
  const tossedInvalid = Boolean(tossed) && !isValidCallbackUrl(tossed!, origin)
  if (tossedInvalid) {
    logger.debug("invalid callback-url cookie ignored", { name: cookies.callbackUrl.name })
    delete authRequest.cookies[cookies.callbackUrl.name]
  }

  const returnRedirect = authRequest.headers.has("X-Auth-Return-Redirect")
  let jar = new CookieJar()
  try {
    const ctx = await createContext(config, authRequest, webRequest)
    ctx.sessionCache = options.sessionCache
    if (options.clientIp !== undefined) ctx.clientIp = options.clientIp
    jar = ctx.jar
    const result = await route(ctx)
    if (tossedInvalid && !jar.list().some((c) => c.name === cookies.callbackUrl.name)) {
      jar.delete(cookies.callbackUrl.name, cookies.callbackUrl.options)
    }
    return { result: returnRedirect ? asReturnedRedirect(result) : result, jar }
  } catch (error) {
    jar.discardSets()
    // A rejected login is an expected outcome, not a server error: a debug line with its code, no stack.
    if (error instanceof CredentialsSignin) logger.debug(`credentials sign-in rejected (code "${error.code}")`)
    // A refusal by the limiter is expected too (a flood must not flood the error log); `events.rateLimited` tells.
    else if (error instanceof RateLimited) logger.debug(`rate limited (retry after ${error.retryAfter} s)`)
    else logger.error(error instanceof Error ? error : new AuthError(String(error)))
    const status = error instanceof AuthError ? error.status : undefined
    const policy = policyOf(authRequest.action)
    const jsonAnswer =
      policy.jsonErrors?.includes(authRequest.method) === true ||
      (error instanceof RateLimited && policy.limitedAnswer === "json")
    // On a route that answers scripts, an error with a status is an answer (400 CSRF, 429 rate limit), not a failure.
    if (config.raw && error instanceof AuthError && !returnRedirect && !(jsonAnswer && status)) throw error
    if (isServiceUnavailable(error) && isApiClient(authRequest.headers, authRequest.action)) {
      const page = returnRedirect ? await errorRedirect(config, authRequest, error, true).json() : undefined
      const response = serviceUnavailable((page as { url?: string } | undefined)?.url)
      for (const cookie of jar.toHeaders()) response.headers.append("Set-Cookie", cookie)
      return response
    }
    // A field of the wrong shape (a JSON array where a login name belongs) is the client's mistake, like a malformed
    // body: 400, on a page route too.
    const malformed = error instanceof InvalidRequest && status === 400
    const response = jsonAnswer
      ? jsonError(policy.jsonErrorBody, error, status)
      : malformed
        ? json(400, { error: error.type })
        : errorRedirect(config, authRequest, error, returnRedirect)
    for (const cookie of jar.toHeaders()) response.headers.append("Set-Cookie", cookie)
    return response
  }
}

/**
 * Answers `request` with an already resolved config (for framework layers that resolve once at construction).
 *
 * @example
 * ```ts
 * const resolved = resolveConfig(config)
 * const response = await handleAuthRequest(request, resolved)
 * ```
 */
export async function handleAuthRequest(
  request: Request,
  config: ResolvedConfig,
  options: HandleOptions = {},
): Promise<Response | ResponseInternal> {
  const outcome = await run({ source: sourceOfRequest(request), webRequest: request }, config, options)
  if (outcome instanceof Response) return outcome
  return config.raw ? toInternal(outcome.result, outcome.jar) : toResponse(outcome.result, outcome.jar)
}

/**
 * Like {@link handleAuthRequest}, but a successful answer comes back serialised (status, header pairs, body text) so a
 * framework layer can write it without building a Web `Response`; errors still come as a `Response`. The request may
 * also be a {@link PipelineRequest}, so the layer need not build a Web `Request` either.
 *
 * @example
 * ```ts
 * const answer = await handleAuthRequestSerialized(request, resolved)
 * if (answer instanceof Response) await sendWebResponse(answer, res)
 * else writeSerialized(answer, res)
 * ```
 */
export async function handleAuthRequestSerialized(
  request: Request | PipelineRequest,
  config: ResolvedConfig,
  options: HandleOptions = {},
): Promise<Response | SerializedResult> {
  const input = request instanceof Request ? { source: sourceOfRequest(request), webRequest: request } : request
  const outcome = await run(input, config, options)
  return outcome instanceof Response ? outcome : serializeResult(outcome.result, outcome.jar)
}

/** A rate limit on reading the session would be a per-request effect a kept answer skips; then none is kept. */
const limitedOnGet = (policyOf("session").rateLimits ?? []).some((entry) => entry.methods.includes("GET"))

/**
 * Answers `GET <basePath>/session` for a request without a query and without any `Cookie` header, given only its
 * origin, so a framework layer need not read such a request any further. Nothing else of it can change the answer: no
 * session cookie, no callback-url candidate and no CSRF cookie, so no user callback runs, and the answer is `null` with
 * the base cookies (a fresh CSRF token, the callback URL set to the origin). The first such request of an origin goes
 * through the context, route and session action like any other, and its answer is kept in
 * `options.cookielessAnswers` (the runtime's store); later ones get a copy with a newly minted CSRF token.
 *
 * @example
 * ```ts
 * if (req.method === "GET" && req.headers.cookie === undefined && req.originalUrl === `${resolved.basePath}/session`) {
 *   const answer = await cookielessSessionRead(resolved, origin, { cookielessAnswers: runtime.cookielessAnswers })
 * }
 * ```
 */
export async function cookielessSessionRead(
  config: ResolvedConfig,
  origin: string,
  options: HandleOptions = {},
): Promise<Response | SerializedResult> {
  const store = options.cookielessAnswers
  const known = store?.get(config.basePath, origin)
  if (known) return fromKept(config, known)
  const url = new URL(`${origin}${config.basePath}/session`)
  const authRequest: AuthRequest = {
    method: "GET",
    url,
    action: "session",
    headers: new Headers(),
    query: {},
    cookies: Object.create(null) as Record<string, string>,
  }
  const outcome = await answer(authRequest, () => new Request(url), config, options)
  if (outcome instanceof Response) return outcome
  const serialized = serializeResult(outcome.result, outcome.jar)
  const kept = store && serialized.status === 200 && !limitedOnGet ? keep(config, origin, serialized) : undefined
  if (!kept) return serialized
  store!.set(config.basePath, origin, kept)
  return fromKept(config, kept)
}

/** What is kept of an answer: the answer and where its CSRF cookie is; `undefined` when it has none it should. */
function keep(config: ResolvedConfig, origin: string, answer: SerializedResult): CookielessAnswer | undefined {
  if (config.skipCSRFCheck) return { answer }
  const { name, options } = requestOrigin(config, new URL(origin)).cookies.csrfToken
  const at = answer.headers.findIndex(([header, value]) => header === "Set-Cookie" && value.startsWith(`${name}=`))
  // Without the CSRF cookie the answer is not the one this function expects: it is not kept.
  return at === -1 ? undefined : { answer, csrf: { at, name, options } }
}

/** A copy of a kept answer (the caller may change it) with a CSRF token minted now. */
function fromKept(config: ResolvedConfig, kept: CookielessAnswer): SerializedResult {
  const { status, body } = kept.answer
  const headers = kept.answer.headers.map(([name, value]): [string, string] => [name, value])
  if (kept.csrf) {
    const { at, name, options } = kept.csrf
    const { cookie } = resolveCsrf({ secret: config.secret, isPost: false })
    headers[at] = ["Set-Cookie", serializeCookie({ name, value: cookie!, options })]
  }
  return { status, headers, body }
}

/**
 * Answers a Web `Request` for one of the auth actions with a Web `Response`. `config` may be a function of the request
 * (resolved per request and cached by the identity of the object it returns). With the `raw` marker a handled action
 * gives the internal result and an `AuthError` is rethrown; a request that cannot be parsed, a config error and an
 * error under `X-Auth-Return-Redirect` still answer a `Response`.
 *
 * @example
 * ```ts
 * import { Auth } from "gatehouse-auth/core"
 * const response = await Auth(new Request("https://app.example/auth/session"), config)
 * ```
 */
export async function Auth(
  request: Request,
  config: AuthConfig & { raw: typeof raw },
): Promise<ResponseInternal | Response>
export async function Auth(request: Request, config: AuthConfig | LazyAuthConfig): Promise<Response>
export async function Auth(
  request: Request,
  config: AuthConfig | LazyAuthConfig,
): Promise<Response | ResponseInternal> {
  const userConfig = typeof config === "function" ? await config(request) : config
  let runtime: ConfigRuntime
  try {
    runtime = sharedRuntime(userConfig, { requestUrl: request.url })
  } catch (error) {
    const logger = createLogger({ debug: userConfig.debug, logger: userConfig.logger })
    return configErrorResponse(request, error as Error, { ...userConfig, logger })
  }
  return handleAuthRequest(request, runtime.resolved, { sessionCache: runtime.sessionCache })
}

/**
 * Resolves and validates `config` now (throwing a clear error if it is bad) and returns a handler for requests.
 *
 * @example
 * ```ts
 * const handler = createAuthHandler(config) // throws here on a bad config
 * const response = await handler(request)
 * ```
 */
export function createAuthHandler(
  config: AuthConfig & { raw: typeof raw },
): (request: Request) => Promise<Response | ResponseInternal>
export function createAuthHandler(config: AuthConfig): (request: Request) => Promise<Response>
export function createAuthHandler(config: AuthConfig): (request: Request) => Promise<Response | ResponseInternal> {
  const runtime = sharedRuntime(config)
  const options = { sessionCache: runtime.sessionCache }
  return (request) => handleAuthRequest(request, runtime.resolved, options)
}

/** `Auth(request, config)` and the pipeline under it: from one parsed request to one answer. */
import {
  AuthError,
  CredentialsSignin,
  InvalidCallbackUrl,
  InvalidRequest,
  UnknownAction,
  RateLimited,
  isServiceUnavailable,
} from "../../errors"
import { createLogger } from "../../logger"
import type { ResolvedConfig } from "../kernel/config/types"
import { sharedRuntime, type ConfigRuntime } from "./runtime"
import { createContext, requestOrigin, type TrustedCall } from "../kernel/context"
import {
  parseRequestSource,
  sessionReadOf,
  sourceOfRequest,
  type AuthRequest,
  type RequestSource,
} from "../kernel/request"
import { isValidCallbackUrl } from "../kernel/redirect"
import { route } from "./router"
import { policyOf } from "../kernel/routes"
import {
  asReturnedRedirect,
  serializeResult,
  toInternal,
  toResponse,
  withErrorCookies,
  type AuthResult,
  type ResponseInternal,
  type SerializedResult,
} from "../kernel/response"
import { CookieJar } from "../kernel/cookies/jar"
import {
  configErrorResponse,
  errorRedirect,
  isApiClient,
  json,
  jsonError,
  serviceUnavailable,
  tokenSignInError,
  unknownRouteAnswer,
} from "./error-answers"
import { isTokenSignIn } from "../kernel/bearer"
import { isNativeStart, nativeRefusal, nativeStart } from "../methods/native/start"
import { passwordErrorAnswer } from "../methods/password/routes"
import type { raw } from "../../symbols"
import type { AuthConfig, Awaitable } from "../kernel/types"

export type LazyAuthConfig = (request: Request) => Awaitable<AuthConfig>

/** What the pipeline answers: a handled request's result and its cookie jar, or a finished `Response` (errors). */
export type Outcome = { result: AuthResult; jar: CookieJar } | Response

/** What the pipeline needs besides the request: the client IP and, for server calls, the trust mark. */
export interface PipelineOptions {
  /**
   * The Web `Request` user callbacks receive (`authorize(credentials, request)`, `rateLimit.ip(request)`), or a
   * function building it on first use.
   */
  webRequest: Request | (() => Request)
  /** The client IP the edge resolved (Express: `req.ip`), `null` for none; unset, `rateLimit.ip(request)` is asked. */
  clientIp?: string | null
  /** A server-side call that passed its origin guard. */
  trusted?: TrustedCall
  /**
   * A server call's error is thrown, not answered: this receives first the `Set-Cookie` values its answer would carry
   * (the deletions, and what is kept on an error, such as a two-factor trust handed back).
   */
  errorCookies?: (setCookies: string[]) => void
}

/**
 * The pipeline after parsing: callback-URL rules, the context (built once, frozen), the route, and the error answers.
 * `config` is the runtime's config under the base path the request was served at.
 *
 * @example
 * ```ts
 * const outcome = await pipeline(runtime, runtime.resolved, authRequest, { webRequest: request })
 * ```
 */
export async function pipeline(
  runtime: Pick<ConfigRuntime, "sessionCache">,
  config: ResolvedConfig,
  request: AuthRequest,
  options: PipelineOptions,
): Promise<Outcome> {
  let authRequest = request
  const { logger } = config
  const { origin, cookies } = requestOrigin(config, authRequest.url)
  // tokens.md T2.3: a native start's callbackUrl is an app URI, checked against native.redirectUris alone.
  // Checked before the call: awaiting a start that is not one would cost every request a turn of the queue.
  const native =
    options.trusted || !isNativeStart(config, authRequest) ? undefined : await nativeStart(config, authRequest, origin)
  if (native && "refused" in native) return nativeRefusal(config, origin, native.refused)
  if (native) authRequest = { ...authRequest, query: { ...authRequest.query, callbackUrl: native.continuation } }
  // An invalid explicit `callbackUrl` is the caller's mistake (400), not a server error.
  const explicit = authRequest.query.callbackUrl
  if (explicit && !isValidCallbackUrl(explicit, origin)) {
    const error = new InvalidCallbackUrl("Invalid callback URL", { cause: { callbackUrl: explicit } })
    logger.error(error)
    if (options.trusted) throw error
    return json(400, { message: "Invalid callbackUrl." })
  }
  // A tossed callback-url cookie must not break every route for that browser: it is ignored, and the context
  // overwrites it with a valid value.
  const tossed = authRequest.cookies[cookies.callbackUrl.name]
  const tossedInvalid = Boolean(tossed) && !isValidCallbackUrl(tossed!, origin)
  if (tossedInvalid) {
    logger.debug("invalid callback-url cookie ignored", { name: cookies.callbackUrl.name })
    delete authRequest.cookies[cookies.callbackUrl.name]
  }

  // A server call answers its caller, never a script: the header of the request it runs for does not apply.
  const tokenAnswer = !options.trusted && isTokenSignIn(config, authRequest)
  const returnRedirect = !options.trusted && !tokenAnswer && authRequest.headers.has("X-Auth-Return-Redirect")
  let jar = new CookieJar()
  try {
    const ctx = await createContext(config, authRequest, {
      webRequest: options.webRequest,
      sessionCache: runtime.sessionCache,
      ...(options.clientIp !== undefined ? { clientIp: options.clientIp } : {}),
      ...(options.trusted ? { trusted: options.trusted } : {}),
      ...(tokenAnswer ? { tokenAnswer } : {}),
    })
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
    // A server call answers its caller with the error itself: nothing here turns it into a page.
    if (options.trusted) {
      options.errorCookies?.(jar.toHeaders())
      throw error
    }
    if (tokenAnswer) return tokenSignInError(error)
    const status = error instanceof AuthError ? error.status : undefined
    const policy = policyOf(authRequest.action)
    const refusal = error instanceof AuthError && policy.jsonRefusals?.includes(error.type) === true
    const jsonAnswer = policy.jsonErrors?.includes(authRequest.method) === true || refusal
    // On a route that answers scripts, an error with a status is an answer (400 CSRF, 429 rate limit), not a failure.
    if (config.raw && error instanceof AuthError && !returnRedirect && !(jsonAnswer && status)) {
      throw withErrorCookies(error, jar)
    }
    if (isServiceUnavailable(error) && isApiClient(authRequest.headers, authRequest.action)) {
      const page = returnRedirect ? await errorRedirect(config, authRequest, error, true).json() : undefined
      const response = serviceUnavailable((page as { url?: string } | undefined)?.url)
      for (const cookie of jar.toHeaders()) response.headers.append("Set-Cookie", cookie)
      return response
    }
    // A field of the wrong shape (a JSON array where a login name belongs) is the client's mistake, like a malformed
    // body: 400, on a page route too.
    const malformed = error instanceof InvalidRequest && status === 400
    const response =
      (await passwordErrorAnswer(config, authRequest, error, returnRedirect)) ??
      (jsonAnswer
        ? jsonError(refusal ? "type" : policy.jsonErrorBody, error, status)
        : malformed
          ? json(400, { error: error.type })
          : errorRedirect(config, authRequest, error, returnRedirect))
    for (const cookie of jar.toHeaders()) response.headers.append("Set-Cookie", cookie)
    return response
  }
}

/**
 * Parses a request source under the config's base path and runs the {@link pipeline}; a request that cannot be
 * parsed answers 400.
 *
 * @example
 * ```ts
 * const outcome = await answerRequest(runtime, config, sourceOfRequest(request), { webRequest: request })
 * ```
 */
export async function answerRequest(
  runtime: Pick<ConfigRuntime, "sessionCache">,
  config: ResolvedConfig,
  source: RequestSource,
  options: PipelineOptions,
): Promise<Outcome> {
  let authRequest: AuthRequest
  try {
    authRequest = sessionReadOf(source, config.basePath) ?? (await parseRequestSource(source, config.basePath))
  } catch (error) {
    config.logger.error(error as Error)
    // A path that names no route: a browser gets a page saying so; any other unreadable request stays JSON.
    if (error instanceof UnknownAction && source.method === "GET") {
      return unknownRouteAnswer(config, source.url, source.headers)
    }
    return json(400, "Bad request.")
  }
  return pipeline(runtime, config, authRequest, options)
}

/**
 * An outcome as the serialised answer a framework edge writes (status, header pairs, body text); errors stay a
 * `Response`.
 *
 * @example
 * ```ts
 * const answer = serialized(await answerRequest(runtime, config, source, options))
 * ```
 */
export function serialized(outcome: Outcome): Response | SerializedResult {
  return outcome instanceof Response ? outcome : serializeResult(outcome.result, outcome.jar)
}

/**
 * Answers a Web `Request` with a runtime's config (under the base path given by `config`).
 *
 * @example
 * ```ts
 * const response = await answerWebRequest(runtime, runtime.resolved, request)
 * ```
 */
export async function answerWebRequest(
  runtime: ConfigRuntime,
  config: ResolvedConfig,
  request: Request,
): Promise<Response | ResponseInternal> {
  const outcome = await answerRequest(runtime, config, sourceOfRequest(request), { webRequest: request })
  if (outcome instanceof Response) return outcome
  return config.raw ? toInternal(outcome.result, outcome.jar) : toResponse(outcome.result, outcome.jar)
}

/**
 * Answers a Web `Request` for one of the auth actions with a Web `Response`. `config` may be a function of the request
 * (resolved per request and cached by the identity of the object it returns). With the `raw` marker a handled action
 * gives the internal result and an `AuthError` is rethrown, carrying the cookies its answer would (`RawAuthError`);
 * a request that cannot be parsed, a config error and an error under `X-Auth-Return-Redirect` still answer a
 * `Response`.
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
  return answerWebRequest(runtime, runtime.resolved, request)
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
  return (request) => answerWebRequest(runtime, runtime.resolved, request)
}

/** `Auth(request, config)`: the core pipeline from a Web Request to a Web Response. */
import { AuthError, CredentialsSignin, InvalidCallbackUrl, ErrorPageLoop, isClientSafeError } from "../errors"
import { createLogger } from "../logger"
import { resolveConfigCached, type ResolvedConfig } from "./config/resolve"
import { createContext, requestOrigin } from "./context"
import { parseActionAndProviderId, parseAuthRequest, type AuthRequest } from "./request"
import { isValidCallbackUrl } from "./redirect"
import { route } from "./router"
import {
  asReturnedRedirect,
  jsonHeaders,
  serializeResult,
  toInternal,
  toResponse,
  type AuthResult,
  type ResponseInternal,
  type SerializedResult,
} from "./response"
import { CookieJar } from "./cookies/jar"
import { pageHeaders, renderErrorPage } from "./pages"
import type { AuthConfig, Awaitable, raw } from "./types"

export type LazyAuthConfig = (request: Request) => Awaitable<AuthConfig>

const pageActions = new Set(["signin", "signout", "error", "verify-request"])
const configErrorBody = {
  message: "There was a problem with the server configuration. Check the server logs for more information.",
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...jsonHeaders, ...headers } })
}

/** A config error: 500 JSON, or for GET on a page action the Configuration page (or a redirect to `pages.error`). */
function configErrorResponse(
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

function errorRedirect(
  config: ResolvedConfig,
  authRequest: AuthRequest,
  error: unknown,
  returnRedirect: boolean,
): Response {
  const { origin } = requestOrigin(config, authRequest.url)
  const type = isClientSafeError(error) ? error.type : "Configuration"
  const params = new URLSearchParams({ error: type })
  if (error instanceof CredentialsSignin) params.set("code", error.code)
  const kind = error instanceof AuthError ? error.kind : "error"
  const page = config.pages[kind] ?? `${config.basePath}/${kind.toLowerCase()}`
  const url = `${origin}${page}?${params}`
  if (returnRedirect) return json(200, { url })
  return new Response(null, { status: 302, headers: { Location: url, "Referrer-Policy": "no-referrer" } })
}

type Outcome = { result: AuthResult; jar: CookieJar } | Response

async function run(request: Request, config: ResolvedConfig): Promise<Outcome> {
  const { logger } = config
  let authRequest: AuthRequest
  try {
    authRequest = await parseAuthRequest(request, config.basePath)
  } catch (error) {
    logger.error(error as Error)
    return json(400, "Bad request.")
  }

  const { origin, cookies } = requestOrigin(config, authRequest.url)
  for (const value of [authRequest.query.callbackUrl, authRequest.cookies[cookies.callbackUrl.name]]) {
    if (value && !isValidCallbackUrl(value, origin)) {
      return configErrorResponse(request, new InvalidCallbackUrl(`Invalid callback URL. Received: ${value}`), config)
    }
  }

  const returnRedirect = request.headers.has("X-Auth-Return-Redirect")
  let jar = new CookieJar()
  try {
    const ctx = await createContext(config, authRequest, request)
    jar = ctx.jar
    const result = await route(ctx)
    return { result: returnRedirect ? asReturnedRedirect(result) : result, jar }
  } catch (error) {
    jar.clear()
    logger.error(error instanceof Error ? error : new AuthError(String(error)))
    if (config.raw && error instanceof AuthError && !returnRedirect) throw error
    if (authRequest.action === "session" && authRequest.method === "POST") return json(400, null)
    return errorRedirect(config, authRequest, error, returnRedirect)
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
): Promise<Response | ResponseInternal> {
  const outcome = await run(request, config)
  if (outcome instanceof Response) return outcome
  return config.raw ? toInternal(outcome.result, outcome.jar) : toResponse(outcome.result, outcome.jar)
}

/**
 * Like {@link handleAuthRequest}, but a successful answer comes back serialised (status, header pairs, body text) so a
 * framework layer can write it without building a Web `Response`; errors still come as a `Response`.
 *
 * @example
 * ```ts
 * const answer = await handleAuthRequestSerialized(request, resolved)
 * if (answer instanceof Response) await sendWebResponse(answer, res)
 * else writeSerialized(answer, res)
 * ```
 */
export async function handleAuthRequestSerialized(
  request: Request,
  config: ResolvedConfig,
): Promise<Response | SerializedResult> {
  const outcome = await run(request, config)
  return outcome instanceof Response ? outcome : serializeResult(outcome.result, outcome.jar)
}

/**
 * Answers a Web `Request` for one of the auth actions with a Web `Response`. `config` may be a function of the request
 * (resolved per request and cached by the identity of the object it returns).
 *
 * @example
 * ```ts
 * import { Auth } from "gatehouse/core"
 * const response = await Auth(new Request("https://app.example/auth/session"), config)
 * ```
 */
export async function Auth(request: Request, config: AuthConfig & { raw: typeof raw }): Promise<ResponseInternal>
export async function Auth(request: Request, config: AuthConfig | LazyAuthConfig): Promise<Response>
export async function Auth(
  request: Request,
  config: AuthConfig | LazyAuthConfig,
): Promise<Response | ResponseInternal> {
  const userConfig = typeof config === "function" ? await config(request) : config
  let resolved: ResolvedConfig
  try {
    resolved = resolveConfigCached(userConfig, { requestUrl: request.url })
  } catch (error) {
    const logger = createLogger({ debug: userConfig.debug, logger: userConfig.logger })
    return configErrorResponse(request, error as Error, { ...userConfig, logger })
  }
  return handleAuthRequest(request, resolved)
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
export function createAuthHandler(config: AuthConfig): (request: Request) => Promise<Response> {
  const resolved = resolveConfigCached(config)
  return async (request) => (await handleAuthRequest(request, resolved)) as Response
}

/** Session entry points: the strategy dispatch used by the /session action, `getSession` and `requireAuth`. */
import type { ResolvedConfig } from "../kernel/config/types"
import { CookieJar } from "../kernel/cookies/jar"
import { parseCookieHeader } from "../../cookie-header"
import type { Session } from "../kernel/types"
import type { SessionCache } from "./cache"
import { readDatabaseSession } from "./database"
export { sessionStore } from "./database"
import { readJwtSession } from "./jwt"
import type { SessionContext, SessionReadOptions } from "./types"

export type { SessionContext, SessionReadOptions }
export { issueSession, type IssueSessionParams } from "./issue"

/**
 * Reads the session with the configured strategy.
 *
 * @example
 * ```ts
 * const session = await readSession(ctx, { reissue: "always" })
 * ```
 */
export function readSession(ctx: SessionContext, options: SessionReadOptions): Promise<Session | null> {
  return ctx.config.session.strategy === "jwt" ? readJwtSession(ctx, options) : readDatabaseSession(ctx, options)
}

/** What server code knows of the request it is handling, to read or manage its session without a Request. */
export interface ServerSessionRequest {
  secure: boolean
  cookie?: string | null
  userAgent?: string | null
}

/**
 * A session context for server code: the cookie names of the request's scheme, its cookies, and a fresh jar whose
 * `toHeaders()` are the `Set-Cookie` values to write afterwards.
 *
 * @example
 * ```ts
 * const ctx = serverSessionContext(config, { secure: true, cookie: req.headers.cookie })
 * ```
 */
export function serverSessionContext(
  config: ResolvedConfig,
  request: ServerSessionRequest,
  options: { sessionCache?: SessionCache } = {},
): SessionContext {
  const secure = config.useSecureCookies ?? (config.authUrl ? config.authUrl.protocol === "https:" : request.secure)
  return {
    config,
    cookies: secure ? config.cookies.secure : config.cookies.insecure,
    requestCookies: parseCookieHeader(request.cookie),
    jar: new CookieJar(),
    sessionCache: options.sessionCache,
    userAgent: request.userAgent,
    memo: {},
  }
}

export interface SessionState {
  session: Session | null
  /** `Set-Cookie` header values to send (a refreshed or cleared session cookie), possibly empty. */
  setCookies: string[]
}

/**
 * Reads the session of a request in-process, for server-side use (`getSession`, `requireAuth`): no Request is built,
 * the cookie is re-issued at most once per `session.updateAge`, and bad or missing cookies yield `null`.
 *
 * @example
 * ```ts
 * const { session, setCookies } = await getSessionState(config, { secure: true, cookie: req.headers.cookie })
 * ```
 */
export async function getSessionState(
  config: ResolvedConfig,
  request: ServerSessionRequest,
  options: { sessionCache?: SessionCache } = {},
): Promise<SessionState> {
  const ctx = serverSessionContext(config, request, options)
  const { jar } = ctx
  let session: Session | null
  try {
    session = await readSession(ctx, { reissue: "throttled" })
  } catch (error) {
    config.logger.error(error as Error)
    session = null
  }
  return { session, setCookies: jar.toHeaders() }
}

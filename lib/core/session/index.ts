/** Session entry points: the strategy dispatch used by the /session action, `getSession` and `requireAuth`. */
import type { ResolvedConfig } from "../kernel/config/types"
import { CookieJar } from "../kernel/cookies/jar"
import { parseCookieHeader } from "../../cookie-header"
import { cookieSet } from "../kernel/context"
import type { Session } from "../kernel/types"
import type { SessionCache } from "../kernel/token-cache"
import { readDatabaseSession } from "./database"
export { sessionStore } from "./database"
import { readJwtSession } from "./jwt"
import type { PrincipalMemo, SessionContext, SessionReadOptions } from "./types"

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
  /** Whether the request arrived over https, as the edge resolved its scheme (`AUTH_URL` and `useSecureCookies` win). */
  secure: boolean
  cookie?: string | null
  userAgent?: string | null
  /** The client IP as the edge resolves it (read only when something records it: `session.storeIp`, the audit). */
  clientIp?: () => string | null
  /** The bearer session the request carries, with `session.bearer` on (tokens.md T1): it decides, not the cookie. */
  bearer?: { token: string | null }
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
  options: { sessionCache?: SessionCache; memo?: PrincipalMemo } = {},
): SessionContext {
  const { cookies } = cookieSet(config, request.secure)
  // One literal with every member (absent ones undefined): spreading optional parts in costs each read a copy.
  return {
    config,
    cookies,
    requestCookies: parseCookieHeader(request.cookie),
    jar: new CookieJar(),
    sessionCache: options.sessionCache,
    userAgent: request.userAgent,
    clientIp: request.clientIp,
    memo: options.memo ?? {},
    bearer: request.bearer,
    tokenOut: request.bearer ? {} : undefined,
  }
}

/**
 * The session read of a server-side session context ({@link serverSessionContext}): the session, or `null` (an error
 * is logged), the cookie re-issued at most once per `session.updateAge`; what it set stays in `ctx.jar` for the caller
 * to send.
 *
 * @example
 * ```ts
 * const session = await readServerSession(ctx)
 * port.setCookies(ctx.jar.toHeaders(), config)
 * ```
 */
export function readServerSession(ctx: SessionContext): Promise<Session | null> {
  return readSession(ctx, { reissue: "throttled" }).catch((error: unknown) => {
    ctx.config.logger.error(error as Error)
    return null
  })
}

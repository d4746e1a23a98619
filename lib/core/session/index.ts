/** Session entry points: the strategy dispatch used by the /session action, `getSession` and `requireAuth`. */
import type { ResolvedConfig } from "../config/resolve"
import { CookieJar } from "../cookies/jar"
import { parseCookieHeader } from "../../cookie-header"
import type { Session } from "../types"
import { readDatabaseSession } from "./database"
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
  request: { secure: boolean; cookie?: string | null },
): Promise<SessionState> {
  const secure = config.useSecureCookies ?? (config.authUrl ? config.authUrl.protocol === "https:" : request.secure)
  const cookies = secure ? config.cookies.secure : config.cookies.insecure
  const jar = new CookieJar()
  const ctx: SessionContext = { config, cookies, requestCookies: parseCookieHeader(request.cookie), jar }
  let session: Session | null
  try {
    session = await readSession(ctx, { reissue: "throttled" })
  } catch (error) {
    config.logger.error(error as Error)
    session = null
  }
  return { session, setCookies: jar.toHeaders() }
}

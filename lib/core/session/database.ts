/** The database session strategy: the cookie holds a session token; the adapter holds the session and user. */
import type { AdapterSession, AdapterUser, SessionAdapter } from "../../adapters/types"
import { SessionTokenError } from "../../errors"
import { clearSessionCookie, readSessionCookie } from "../cookies/session-store"
import type { Session } from "../types"
import type { SessionContext, SessionReadOptions } from "./types"

function sessionAdapter(ctx: SessionContext): SessionAdapter {
  return ctx.config.adapter as SessionAdapter
}

/**
 * Sets the database session cookie to `sessionToken`, expiring at `expires`.
 *
 * @example
 * ```ts
 * writeDatabaseSessionCookie(ctx, session.sessionToken, session.expires)
 * ```
 */
export function writeDatabaseSessionCookie(ctx: SessionContext, sessionToken: string, expires: Date): void {
  const { name, options } = ctx.cookies.sessionToken
  ctx.jar.set(name, sessionToken, { ...options, expires })
}

/**
 * Reads the database session: expired rows are deleted and their cookie cleared; the expiry slides forward at most
 * once per `updateAge`. Adapter failures log `SessionTokenError` and yield null without clearing the cookie.
 *
 * @example
 * ```ts
 * const session = await readDatabaseSession(ctx, { reissue: "throttled" })
 * ```
 */
export async function readDatabaseSession(ctx: SessionContext, options: SessionReadOptions): Promise<Session | null> {
  const { config, cookies } = ctx
  const stored = readSessionCookie(ctx.requestCookies, cookies.sessionToken.name)
  if (!stored.value) {
    if (stored.present.length > 0) clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
    return null
  }
  const sessionToken = stored.value
  try {
    const adapter = sessionAdapter(ctx)
    let found = await adapter.getSessionAndUser(sessionToken)
    if (found && found.session.expires.valueOf() < Date.now()) {
      await adapter.deleteSession(sessionToken)
      found = null
    }
    if (!found) {
      clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
      return null
    }
    const { session, user } = found
    const { maxAge, updateAge } = config.session
    const dueAt = session.expires.valueOf() - maxAge * 1000 + updateAge * 1000
    let expires = session.expires
    if (dueAt <= Date.now()) {
      expires = new Date(Date.now() + maxAge * 1000)
      await adapter.updateSession({ sessionToken, expires })
    }
    const result = (await config.callbacks.session({
      session: { ...session, user },
      user,
      newSession: options.update?.data,
      ...(options.update ? { trigger: "update" as const } : {}),
    } as unknown as Parameters<typeof config.callbacks.session>[0])) as Session
    if (options.reissue === "always" || expires !== session.expires) {
      writeDatabaseSessionCookie(ctx, sessionToken, expires)
    }
    await config.events.session({ session: result })
    return result
  } catch (error) {
    config.logger.error(new SessionTokenError(error as Error))
    return null
  }
}

/**
 * The user behind the current database session, if any (for account linking).
 *
 * @example
 * ```ts
 * const user = await currentDatabaseUser(ctx)
 * ```
 */
export async function currentDatabaseUser(
  ctx: SessionContext,
): Promise<{ user: AdapterUser; session: AdapterSession } | null> {
  const token = readSessionCookie(ctx.requestCookies, ctx.cookies.sessionToken.name).value
  if (!token) return null
  const found = await sessionAdapter(ctx).getSessionAndUser(token)
  if (!found || found.session.expires.valueOf() < Date.now()) return null
  return found
}

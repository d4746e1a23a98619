/** The database session strategy: the cookie holds a session token; the adapter holds the session and user. */
import type { SessionAdapter } from "../../storage/adapter"
import { AdapterError, SessionTokenError, isServiceUnavailable } from "../../errors"
import { clearSessionCookie } from "../kernel/cookies/session-store"
import { runSessionCallback } from "../kernel/config/callbacks"
import { store } from "../kernel/config/stores"
import type { ResolvedConfig } from "../kernel/config/types"
import type { Session } from "../kernel/types"
import type { SessionContext, SessionReadOptions } from "./types"
import { currentPrincipal, impersonatorOf, type DatabasePrincipal } from "./principal"
import { databaseRefreshError } from "./tokens"
import { withKeys } from "../../with-keys"

/**
 * The session store of a database-strategy config (always present there: checked at construction).
 *
 * @example
 * ```ts
 * await sessionStore(config).deleteSession(token)
 * ```
 */
export function sessionStore(config: Pick<ResolvedConfig, "stores">): SessionAdapter {
  return store(config, "sessions")
}

function sessionAdapter(ctx: SessionContext): SessionAdapter {
  return sessionStore(ctx.config)
}

/**
 * Sets the database session cookie to `sessionToken`, expiring at `expires`.
 *
 * @example
 * ```ts
 * writeDatabaseSessionCookie(ctx, token, session.expires)
 * ```
 */
export function writeDatabaseSessionCookie(ctx: SessionContext, sessionToken: string, expires: Date): void {
  if (ctx.tokenOut) {
    // A bearer session slides server-side and gets no header; a token sign-in hands the new token to the client.
    if (!ctx.bearer) {
      ctx.tokenOut.token = sessionToken
      ctx.tokenOut.expires = Math.floor(expires.valueOf() / 1000)
    }
    return
  }
  const { name, options } = ctx.cookies.sessionToken
  ctx.jar.set(name, sessionToken, withKeys(options, { expires }))
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
  const door = await currentPrincipal(ctx)
  const stored = door.cookie
  try {
    if (!door.ok) {
      if (door.reason === "error") throw door.error
      // An expired row is deleted as it is found.
      if (door.session) await sessionAdapter(ctx).deleteSession(door.session.sessionToken)
      if (stored.present.length > 0) clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
      return null
    }
    const cookieToken = stored.value as string
    const found = door.principal as DatabasePrincipal
    const adapter = sessionAdapter(ctx)
    const { session, user } = found
    // The key the row is stored under (its hash, or the raw token of a legacy row); the cookie keeps the token.
    const sessionToken = session.sessionToken
    const { maxAge, updateAge } = config.session
    const dueAt = session.expires.valueOf() - maxAge * 1000 + updateAge * 1000
    let expires = session.expires
    // An impersonation session never slides: it ends when it was created to end (accounts.md §3.5).
    const impersonatedBy = impersonatorOf(found)
    if (dueAt <= Date.now() && impersonatedBy === undefined) {
      expires = new Date(Date.now() + maxAge * 1000)
      // Only adapters with session management know the extra column (an Auth.js adapter may reject unknown fields).
      const managed = typeof config.stores.management?.listSessionsByUserId === "function"
      await adapter.updateSession({ sessionToken, expires, ...(managed ? { lastActiveAt: new Date() } : {}) })
    }
    // The callback's `session` never carries the raw `sessionToken` (nor `userId`), so a callback that
    // returns it unchanged cannot expose the token to page scripts through GET /session.
    const returned = (await runSessionCallback(config.callbacks, {
      session: { user, expires: session.expires },
      user,
      newSession: options.update?.data,
      ...(options.update ? { trigger: "update" as const } : {}),
    })) as Session & { sessionToken?: unknown }
    let result: Session = returned
    if (returned && typeof returned === "object" && "sessionToken" in returned) {
      const { sessionToken: _never, ...rest } = returned
      result = rest
    }
    // Set after the callback, so the app cannot hide an impersonation by accident.
    if (impersonatedBy !== undefined && result && typeof result === "object") result = { ...result, impersonatedBy }
    if (await databaseRefreshError(config, user.id, session.createdAt)) {
      // The provider refused this user's refresh token after the session began.
      if (config.session.refresh?.signOutOnError) return null
      result = { ...result, error: "RefreshTokenError" }
    }
    if (options.reissue === "always" || expires !== session.expires) {
      writeDatabaseSessionCookie(ctx, cookieToken, expires)
    }
    await config.events.session({ session: result })
    return result
  } catch (error) {
    if (options.failOnOutage && isServiceUnavailable(error)) throw error
    // An adapter failure was logged once already, by the adapter wrapper; the door logged its own.
    if (!(error instanceof AdapterError) && !(!door.ok && door.reason === "error"))
      config.logger.error(new SessionTokenError("The database session could not be read", { cause: error as Error }))
    return null
  }
}

/** Ending the request's own session on sign-out: the one door says which session it is; the cookie is cleared. */
import type { AdapterSession } from "../../storage/adapter"
import { SignOutError } from "../../errors"
import { clearSessionCookie } from "../kernel/cookies/session-store"
import type { JWT } from "../kernel/types"
import { sessionStore } from "./database"
import { withoutReserved } from "./idp"
import { currentPrincipal, forgetPrincipal, impersonatorOf } from "./principal"
import { signOutImpersonation } from "./impersonation"
import type { SessionContext } from "./types"
import { recordAudit } from "../kernel/audit"
import { claimsOf, sessionEndKey } from "./claims"

/** The session a sign-out ended: the JWT that was valid, or the database row that was deleted. */
export interface EndedSession {
  token?: JWT
  session?: AdapterSession | null
}

/**
 * Ends the request's session and fires `events.signOut`: a JWT session only when the door accepts its token (a
 * revoked, forged or foreign-key cookie ends nothing and names no one: the event gets `token: null`); a database
 * session by deleting its row (an expired one too). Every chunk of the session cookie is cleared whatever happens; a
 * failing store is logged as `SignOutError`, never thrown.
 *
 * @example
 * ```ts
 * const ended = await endSession(sessionContext(ctx))
 * ```
 */
export async function endSession(ctx: SessionContext): Promise<EndedSession> {
  const { config } = ctx
  const door = await currentPrincipal(ctx)
  let ended: EndedSession = {}
  if (door.cookie.value) {
    try {
      if (!door.ok && door.reason === "error") throw door.error
      if (config.session.strategy === "jwt") {
        const token = door.ok && door.principal.strategy === "jwt" ? door.principal.token : undefined
        await config.events.signOut({ token: token ? withoutReserved(token) : null })
        if (token) ended = { token }
      } else {
        const row = door.ok
          ? door.principal.strategy === "database"
            ? door.principal.session
            : undefined
          : door.session
        const session = row ? await sessionStore(config).deleteSession(row.sessionToken) : null
        await config.events.signOut({ session: session ?? null })
        ended = { session: session ?? null }
      }
    } catch (error) {
      config.logger.error(new SignOutError("Reading the session to sign out failed", { cause: error as Error }))
    }
  }
  // An impersonation session takes the admin session it holds with it (accounts.md §3.5).
  const principal = door.ok ? door.principal : undefined
  try {
    await signOutImpersonation(ctx, door)
  } catch (error) {
    config.logger.error(new SignOutError("Ending the impersonating admin's session failed", { cause: error as Error }))
  }
  clearSessionCookie(ctx.jar, door.cookie.present, ctx.cookies.sessionToken.options)
  forgetPrincipal(ctx)
  const userId = ended.token?.sub ?? ended.session?.userId
  const actorId = principal ? impersonatorOf(principal) : undefined
  if (typeof userId === "string") await recordAudit(ctx, { type: "signout", userId, ...(actorId ? { actorId } : {}) })
  return ended
}

/**
 * Signs out the bearer session a request carries (tokens.md T1.6): a database row is deleted; a JWT session is ended
 * by its `sess-end` marker (checked by the door on every read, cookie or bearer) for `session.maxAge`. `events.signOut`
 * fires once for a session that was live; an unknown, expired or already revoked bearer ends nothing and fires
 * nothing (RFC 7009). A sign-out (no `reason`) writes the audit event `signout`. No cookie is read or written.
 * Resolves whether a session was ended.
 *
 * @example
 * ```ts
 * if (ctx.bearer) await endBearerSession(sessionContext(ctx))
 * ```
 */
export async function endBearerSession(
  ctx: SessionContext,
  reason?: "revoked",
): Promise<(EndedSession & { userId?: string }) | null> {
  const { config } = ctx
  const door = await currentPrincipal(ctx)
  if (!door.ok) return null
  const { principal } = door
  let ended: EndedSession
  if (principal.strategy === "database") {
    const session = await sessionStore(config).deleteSession(principal.session.sessionToken)
    await config.events.signOut({ session: session ?? principal.session, ...(reason ? { reason } : {}) })
    ended = { session: session ?? principal.session }
  } else {
    const { token, userId } = principal
    const epoch = claimsOf(token)?.se
    if (userId === undefined || typeof epoch !== "number") {
      // Nothing names this one session in the store: it cannot be ended alone, so it is left as it is.
      config.logger.debug("bearer sign-out: the session has no epoch; nothing ended")
      return null
    }
    await config.store.set(sessionEndKey(userId, epoch), "1", config.session.maxAge)
    await config.events.signOut({ token: withoutReserved(token), ...(reason ? { reason } : {}) })
    ended = { token }
  }
  forgetPrincipal(ctx)
  // A sign-out is `signout`; a revocation (a code reuse) is audited by its caller, with its reason.
  if (!reason && principal.userId !== undefined) await recordAudit(ctx, { type: "signout", userId: principal.userId })
  return { ...ended, userId: principal.userId }
}

/** Ending the request's own session on sign-out: the one door says which session it is; the cookie is cleared. */
import type { AdapterSession } from "../../storage/adapter"
import { SignOutError } from "../../errors"
import { clearSessionCookie } from "../kernel/cookies/session-store"
import type { JWT } from "../kernel/types"
import { sessionStore } from "./database"
import { withoutReserved } from "./idp"
import { currentPrincipal, forgetPrincipal } from "./principal"
import type { SessionContext } from "./types"
import { recordAudit } from "../kernel/audit"

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
  clearSessionCookie(ctx.jar, door.cookie.present, ctx.cookies.sessionToken.options)
  forgetPrincipal(ctx)
  const userId = ended.token?.sub ?? ended.session?.userId
  if (typeof userId === "string") await recordAudit(ctx, { type: "signout", userId })
  return ended
}

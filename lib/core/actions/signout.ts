/** POST /signout (CSRF-checked): ends the session and fires the signOut event. GET shows the page. */
import type { SessionAdapter } from "../../adapters/types"
import { MissingCSRF, SignOutError } from "../../errors"
import type { RequestContext } from "../context"
import { clearSessionCookie, readSessionCookie } from "../cookies/session-store"
import type { AuthResult } from "../response"
import { signOutPage } from "./pages"

/**
 * Handles GET and POST /signout. JWT: the token is decoded (failures logged, not thrown) for the event; database: the
 * session row is deleted. Every session cookie chunk is cleared; then 302 to the callback URL.
 *
 * @example
 * ```ts
 * const result = await signOutAction(ctx)
 * ```
 */
export async function signOutAction(ctx: RequestContext): Promise<AuthResult> {
  if (ctx.request.method === "GET") return signOutPage(ctx)
  if (!ctx.csrfVerified) throw new MissingCSRF("CSRF token was missing during an action signout")
  const { config, cookies } = ctx
  const stored = readSessionCookie(ctx.request.cookies, cookies.sessionToken.name)
  if (stored.value) {
    if (config.session.strategy === "jwt") {
      let token = null
      try {
        token = await config.jwt.decode({ token: stored.value, secret: config.secret, salt: cookies.sessionToken.name })
      } catch (error) {
        config.logger.error(new SignOutError(error as Error))
      }
      await config.events.signOut({ token })
    } else {
      try {
        const session = await (config.adapter as SessionAdapter).deleteSession(stored.value)
        await config.events.signOut({ session })
      } catch (error) {
        config.logger.error(new SignOutError(error as Error))
      }
    }
  }
  clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
  return { redirect: ctx.callbackUrl }
}

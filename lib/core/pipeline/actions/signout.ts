/** POST /signout (CSRF-checked): ends the session and fires the signOut event. GET shows the page. */
import { SignOutError } from "../../../errors"
import type { RequestContext } from "../../kernel/context"
import { clearSessionCookie } from "../../kernel/cookies/session-store"
import { readSessionCookie } from "../../../cookie-header"
import type { AuthResult } from "../../kernel/response"
import { signOutPage } from "./pages"
import { sessionStore } from "../../session/database"
import { deleteSessionByCookie } from "../../session/token"
import { idpOfToken, withoutReserved } from "../../session/idp"
import { endSessionUrl, idpOfDatabaseSession, idpOfJwtSession } from "../../methods/oauth/federated-logout"

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
  const { config, cookies } = ctx
  const stored = readSessionCookie(ctx.request.cookies, cookies.sessionToken.name)
  let signedIn: { provider: string; idToken?: string } | undefined
  if (stored.value) {
    if (config.session.strategy === "jwt") {
      let token = null
      try {
        token = await config.jwt.decode({ token: stored.value, secret: config.secret, salt: cookies.sessionToken.name })
      } catch (error) {
        config.logger.error(new SignOutError("Reading the session to sign out failed", { cause: error as Error }))
      }
      signedIn = idpOfJwtSession(idpOfToken(token))
      await config.events.signOut({ token: token ? withoutReserved(token) : token })
    } else {
      try {
        const session = await deleteSessionByCookie(sessionStore(config), stored.value)
        signedIn = await idpOfDatabaseSession(ctx, session)
        await config.events.signOut({ session })
      } catch (error) {
        config.logger.error(new SignOutError("Reading the session to sign out failed", { cause: error as Error }))
      }
    }
  }
  clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
  // RP-initiated logout: unless the form says `federated=false`, end the session at the OP too.
  const federated = ctx.request.body?.federated !== "false" && ctx.request.body?.federated !== false
  const endSession = federated ? await endSessionUrl(ctx, signedIn) : undefined
  return { redirect: endSession ?? ctx.callbackUrl }
}

/** POST /signout (CSRF-checked): ends the session and fires the signOut event. GET shows the page. */
import { SignOutError } from "../../../errors"
import type { RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import { signOutPage } from "./pages"
import { sessionContext } from "../../session/context"
import { idpOfToken } from "../../session/idp"
import { endBearerSession, endSession } from "../../session/sign-out"
import { tokenAnswerHeaders } from "../../kernel/bearer"
import { endSessionUrl, idpOfDatabaseSession, idpOfJwtSession } from "../../methods/oauth/federated-logout"

/**
 * Handles GET and POST /signout: ends the request's session (`endSession`: only a session the door accepts is named
 * in the event and at the OP), clears every session cookie chunk, then 302 to the OP's end-session URL or the callback.
 *
 * @example
 * ```ts
 * const result = await signOutAction(ctx)
 * ```
 */
export async function signOutAction(ctx: RequestContext): Promise<AuthResult> {
  if (ctx.request.method === "GET") return signOutPage(ctx)
  if (ctx.bearer) {
    // tokens.md T1.6: the bearer's session ends; the answer is the same whether or not there was one (RFC 7009).
    await endBearerSession(sessionContext(ctx))
    return { status: 200, headers: { ...tokenAnswerHeaders }, body: { ok: true } }
  }
  const ended = await endSession(sessionContext(ctx))
  let signedIn: { provider: string; idToken?: string } | undefined
  if (ended.token) signedIn = idpOfJwtSession(idpOfToken(ended.token))
  else if (ended.session) {
    try {
      signedIn = await idpOfDatabaseSession(ctx, ended.session)
    } catch (error) {
      ctx.config.logger.error(new SignOutError("Reading the session to sign out failed", { cause: error as Error }))
    }
  }
  // RP-initiated logout: unless the form says `federated=false`, end the session at the OP too.
  const federated = ctx.request.body?.federated !== "false" && ctx.request.body?.federated !== false
  const endAtProvider = federated ? await endSessionUrl(ctx, signedIn) : undefined
  return { redirect: endAtProvider ?? ctx.callbackUrl }
}

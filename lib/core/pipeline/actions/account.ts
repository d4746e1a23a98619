/**
 * `<base>/account[/<sub>]`: the account routes of `methods/account`, and `POST <base>/account/link`, which starts the
 * OAuth link flow of `methods/oauth` (the two rooms meet here, on the floor above them).
 */
import type { RequestContext } from "../../kernel/context"
import { jsonHeaders, noCacheHeaders, type AuthResult } from "../../kernel/response"
import { accountAction, accountJsonError, accountRoutesOff } from "../../methods/account/routes"
import { startLink } from "../../methods/oauth/link-flow"

/** Where a link sends the user back: the `callbackUrl` (through the `redirect` callback), a same-origin Referer, `/`. */
function linkTarget(ctx: RequestContext): string {
  if (typeof ctx.request.body?.callbackUrl === "string") return ctx.callbackUrl
  const referer = ctx.request.headers.get("referer")
  try {
    if (referer && new URL(referer).origin === ctx.origin) return referer
  } catch {
    // Not a URL: the default.
  }
  return "/"
}

/**
 * Answers the account action.
 *
 * @example
 * ```ts
 * const result = await accountRoute(ctx)
 * ```
 */
export async function accountRoute(ctx: RequestContext): Promise<AuthResult> {
  if (ctx.request.providerId !== "link" || ctx.request.method !== "POST") return accountAction(ctx)
  // The server function `linkAccount` comes here as a trusted call, whatever the route flag says.
  if (!ctx.config.accounts.routes.account && ctx.trusted !== true) return accountRoutesOff()
  try {
    const url = await startLink(ctx, ctx.request.body?.provider, linkTarget(ctx))
    return { status: 200, headers: { ...jsonHeaders, ...noCacheHeaders }, body: { url } }
  } catch (error) {
    // A server call gets the error itself (its class and status), not its JSON answer.
    if (ctx.trusted === true) throw error
    return accountJsonError(error)
  }
}

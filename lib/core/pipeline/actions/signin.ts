/** POST /signin[/:provider]: starts a sign-in (CSRF-checked). GET /signin shows the page. */
import { UnknownAction } from "../../../errors"
import { startOAuthSignIn } from "../../../oauth"
import { actionUrl, type RequestContext } from "../../kernel/context"
import { oauthFlowContext } from "../../methods/oauth/flow-context"
import type { AuthResult } from "../../kernel/response"
import { signInPage } from "./pages"
import { sendVerificationEmail } from "../../methods/email/email"
import { isNativeStart } from "../../methods/native/start"

/**
 * Handles GET and POST /signin.
 *
 * @example
 * ```ts
 * const result = await signInAction(ctx)
 * ```
 */
export async function signInAction(ctx: RequestContext): Promise<AuthResult> {
  if (ctx.request.method === "GET") {
    if (ctx.provider && isNativeStart(ctx.config, ctx.request)) {
      // tokens.md T2.3: the pipeline checked the start and made the continuation the callback URL.
      if (ctx.provider.type === "oauth" || ctx.provider.type === "oidc") {
        return { redirect: await startOAuthSignIn(oauthFlowContext(ctx, ctx.provider)) }
      }
      const page = ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`
      const query = new URLSearchParams({ callbackUrl: ctx.callbackUrl })
      return { redirect: `${ctx.origin}${page}${page.includes("?") ? "&" : "?"}${query}` }
    }
    if (ctx.provider) throw new UnknownAction("Unsupported action")
    return signInPage(ctx)
  }
  const provider = ctx.provider
  if (!provider) return { redirect: actionUrl(ctx, "signin") }
  switch (provider.type) {
    case "oauth":
    case "oidc":
      return { redirect: await startOAuthSignIn(oauthFlowContext(ctx, provider)) }
    case "email":
      return sendVerificationEmail(ctx, provider)
    default:
      return { redirect: actionUrl(ctx, "signin") }
  }
}

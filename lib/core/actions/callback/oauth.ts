/** GET (or form_post POST) /callback/:oauthProvider: finish the OAuth flow, link the account, issue the session. */
import { AuthError, CallbackRouteError, OAuthCallbackError, OAuthProfileParseError } from "../../../errors"
import { finishOAuthSignIn, type ResolvedOAuthProvider } from "../../../oauth"
import { oauthFlowContext, type RequestContext } from "../../context"
import type { AuthResult } from "../../response"
import { finishSignIn, runSignInCallback } from "../finish-sign-in"
import { linkOrRegister } from "./link-account"

/**
 * Completes an OAuth/OIDC sign-in.
 *
 * @example
 * ```ts
 * const result = await oauthCallback(ctx, provider)
 * ```
 */
export async function oauthCallback(ctx: RequestContext, provider: ResolvedOAuthProvider): Promise<AuthResult> {
  const params =
    ctx.request.method === "POST"
      ? new URLSearchParams(
          Object.entries(ctx.request.body ?? {}).filter((e): e is [string, string] => typeof e[1] === "string"),
        )
      : ctx.request.url.searchParams
  let result
  try {
    result = await finishOAuthSignIn(oauthFlowContext(ctx, provider), params)
  } catch (error) {
    if (error instanceof OAuthProfileParseError) {
      // Fixed quirk: the reference redirected to `<request URL>/signin`; the sign-in page with an error is right.
      ctx.logger.error(error)
      throw new OAuthCallbackError("The provider's profile could not be read", { cause: { provider: provider.id } })
    }
    if (error instanceof AuthError) throw error
    throw new CallbackRouteError(error as Error, { cause: { provider: provider.id } })
  }
  if (result.kind === "proxy") return { redirect: result.redirect }
  const { user: userFromProvider, account, profile, idp } = result
  const adapter = ctx.config.stores.oauth

  if (!adapter) {
    const redirect = await runSignInCallback(ctx, { user: userFromProvider, account, profile })
    if (redirect) return { redirect }
    return finishSignIn(ctx, { user: userFromProvider, account, profile, idp })
  }

  const userByAccount = await adapter.getUserByAccount({
    provider: account.provider,
    providerAccountId: account.providerAccountId,
  })
  const redirect = await runSignInCallback(ctx, { user: userByAccount ?? userFromProvider, account, profile })
  if (redirect) return { redirect }
  const { user, isNewUser } = await linkOrRegister(ctx, provider, { userFromProvider, userByAccount, account, profile })
  return finishSignIn(ctx, { user, account, profile, isNewUser, idp })
}

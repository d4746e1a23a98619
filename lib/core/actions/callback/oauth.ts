/** GET (or form_post POST) /callback/:oauthProvider: finish the OAuth flow, link the account, issue the session. */
import type { UserAdapter } from "../../../adapters/types"
import { AuthError, CallbackRouteError, OAuthCallbackError, OAuthProfileParseError } from "../../../errors"
import { finishOAuthSignIn, type OAuthFlowContext, type ResolvedOAuthProvider } from "../../../oauth"
import { actionUrl, type RequestContext } from "../../context"
import type { AuthResult } from "../../response"
import { issueSession } from "../../session"
import { sessionContext } from "../session"
import { runSignInCallback } from "../sign-in-callback"
import { linkOrRegister } from "./link-account"

/**
 * The slice of the request context the OAuth engine needs.
 *
 * @example
 * ```ts
 * const url = await startOAuthSignIn(oauthFlowContext(ctx, provider))
 * ```
 */
export function oauthFlowContext(ctx: RequestContext, provider: ResolvedOAuthProvider): OAuthFlowContext {
  return {
    provider,
    callbackUrl: actionUrl(ctx, "callback", provider.id),
    origin: ctx.origin,
    secret: ctx.config.secret,
    requestCookies: ctx.request.cookies,
    checkCookies: {
      state: ctx.cookies.state,
      pkceCodeVerifier: ctx.cookies.pkceCodeVerifier,
      nonce: ctx.cookies.nonce,
    },
    setCookie: (name, value, options) => ctx.jar.set(name, value, options),
    logger: ctx.logger,
    query: ctx.request.query,
  }
}

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
  const { user: userFromProvider, account, profile } = result
  const adapter = ctx.config.adapter as UserAdapter | undefined

  if (!adapter) {
    const redirect = await runSignInCallback(ctx, { user: userFromProvider, account, profile })
    if (redirect) return { redirect }
    await issueSession(sessionContext(ctx), { user: userFromProvider, account, profile, trigger: "signIn" })
    return { redirect: ctx.callbackUrl }
  }

  const userByAccount = await adapter.getUserByAccount({
    provider: account.provider,
    providerAccountId: account.providerAccountId,
  })
  const redirect = await runSignInCallback(ctx, { user: userByAccount ?? userFromProvider, account, profile })
  if (redirect) return { redirect }
  const { user, isNewUser } = await linkOrRegister(ctx, provider, { userFromProvider, userByAccount, account, profile })
  await issueSession(sessionContext(ctx), {
    user,
    account,
    profile,
    isNewUser,
    trigger: isNewUser ? "signUp" : "signIn",
  })
  const newUser = ctx.config.pages.newUser
  if (isNewUser && newUser) {
    return {
      redirect: `${newUser}${newUser.includes("?") ? "&" : "?"}${new URLSearchParams({ callbackUrl: ctx.callbackUrl })}`,
    }
  }
  return { redirect: ctx.callbackUrl }
}

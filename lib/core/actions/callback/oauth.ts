/** GET (or form_post POST) /callback/:oauthProvider: finish the OAuth flow, link the account, issue the session. */
import {
  AdapterError,
  AuthError,
  CallbackRouteError,
  OAuthCallbackError,
  OAuthProfileParseError,
} from "../../../errors"
import { finishOAuthSignIn, type ResolvedOAuthProvider } from "../../../oauth"
import { oauthFlowContext, type RequestContext } from "../../context"
import type { AuthResult } from "../../response"
import { finishSignIn, runSignInCallback } from "../finish-sign-in"
import { linkOrRegister } from "./link-account"

/** Pauses before each further lookup: an adapter without transactions links the winner's account just after its user. */
const CONFLICT_RETRY_DELAYS = [0, 25, 100]

/** The winner's user once its account row is visible, or null after the last try. */
async function lookupAfterConflict<T>(lookup: () => T | null | PromiseLike<T | null>): Promise<T | null> {
  for (const delay of CONFLICT_RETRY_DELAYS) {
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay).unref())
    const found = await lookup()
    if (found) return found
  }
  return null
}

/**
 * Completes an OAuth/OIDC sign-in. A first sign-in that loses a race with a concurrent one for the same account (an
 * `adapter_conflict` from the write) looks the account up again and signs in as the winner's user.
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
    throw new CallbackRouteError("The OAuth callback failed", { cause: { err: error as Error, provider: provider.id } })
  }
  if (result.kind === "proxy") return { redirect: result.redirect }
  const { user: userFromProvider, account, profile, idp } = result
  const adapter = ctx.config.stores.oauth

  if (!adapter) {
    const redirect = await runSignInCallback(ctx, { user: userFromProvider, account, profile })
    if (redirect) return { redirect }
    return finishSignIn(ctx, { user: userFromProvider, account, profile, idp })
  }

  const accountKey = { provider: account.provider, providerAccountId: account.providerAccountId }
  const userByAccount = await adapter.getUserByAccount(accountKey)
  const redirect = await runSignInCallback(ctx, { user: userByAccount ?? userFromProvider, account, profile })
  if (redirect) return { redirect }
  let linked
  try {
    linked = await linkOrRegister(ctx, provider, { userFromProvider, userByAccount, account, profile })
  } catch (error) {
    if (!(error instanceof AdapterError && error.code === "adapter_conflict")) throw error
    // A concurrent first sign-in with the same account (or email) stored its rows between our lookup and our write:
    // decide again, once, with what is stored now (the winner's user, or the email rule of linkOrRegister).
    ctx.logger.debug("oauth sign-in: write conflict, looking the account up again", { provider: provider.id })
    const stored = await lookupAfterConflict(() => adapter.getUserByAccount(accountKey))
    linked = await linkOrRegister(ctx, provider, { userFromProvider, userByAccount: stored, account, profile })
  }
  return finishSignIn(ctx, { user: linked.user, account, profile, isNewUser: linked.isNewUser, idp })
}

/** GET (or form_post POST) /callback/:oauthProvider: finish the OAuth flow, link the account, issue the session. */
import {
  AdapterError,
  AuthError,
  CallbackRouteError,
  OAuthCallbackError,
  OAuthProfileParseError,
} from "../../../errors"
import { finishOAuthSignIn, type ResolvedOAuthProvider } from "../../../oauth"
import type { RequestContext } from "../../kernel/context"
import { oauthFlowContext } from "./flow-context"
import type { AuthResult } from "../../kernel/response"
import { finishSignIn, runSignInCallback } from "../../session/finish-sign-in"
import { linkOrRegister } from "./link-account"
import { finishLink } from "./link-flow"
import type { AccountTokenPatch, AdapterAccount } from "../../../storage/adapter"
import { accountPointerKey, dpopKeyAtRest, tokenAtRest } from "../../session/tokens"
import type { Account } from "../../kernel/types"

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
  const dpopKey = result.dpop?.jwk

  if (!adapter) {
    const redirect = await runSignInCallback(ctx, { user: userFromProvider, account, profile })
    if (redirect) return { redirect }
    return finishSignIn(ctx, { user: userFromProvider, account, profile, idp, ...(dpopKey ? { dpopKey } : {}) })
  }

  // With `tokens.encryptAtRest`, the account row gets `gh1.` token columns; a DPoP key is sealed in any case.
  const stored = await accountAtRest(ctx, account, dpopKey)
  // An explicit link (accounts.md §2.3) attaches the account to the user who started it and signs no one in.
  const linkedNow = await finishLink(ctx, provider, stored)
  if (linkedNow) return linkedNow
  const accountKey = { provider: account.provider, providerAccountId: account.providerAccountId }
  const userByAccount =
    (await adapter.getUserByAccount(accountKey)) ??
    (result.formerProviderAccountId ? await rekeyFormerAccount(ctx, account, result.formerProviderAccountId) : null)
  const redirect = await runSignInCallback(ctx, { user: userByAccount ?? userFromProvider, account, profile })
  if (redirect) return { redirect }
  let byAccount = userByAccount
  let linked
  try {
    linked = await linkOrRegister(ctx, provider, { userFromProvider, userByAccount, account: stored, profile })
  } catch (error) {
    if (!(error instanceof AdapterError && error.code === "adapter_conflict")) throw error
    // A concurrent first sign-in with the same account (or email) stored its rows between our lookup and our write:
    // decide again, once, with what is stored now (the winner's user, or the email rule of linkOrRegister).
    ctx.logger.debug("oauth sign-in: write conflict, looking the account up again", { provider: provider.id })
    byAccount = await lookupAfterConflict(() => adapter.getUserByAccount(accountKey))
    linked = await linkOrRegister(ctx, provider, {
      userFromProvider,
      userByAccount: byAccount,
      account: stored,
      profile,
    })
  }
  const { user, isNewUser } = linked
  if (provider.refresh) await keepRefreshTokens(ctx, provider, user.id, stored, byAccount !== null)
  return finishSignIn(ctx, { user, account, profile, isNewUser, idp, ...(dpopKey ? { dpopKey } : {}) })
}

/**
 * An account an earlier version of the provider stored under another id (Bitbucket's `uuid`): moved to today's id
 * (unlink, then link the same row under the new key), and its user returned. `null` when there is none.
 */
async function rekeyFormerAccount(ctx: RequestContext, account: Account, formerId: string) {
  const adapter = ctx.config.stores.oauth
  if (!adapter?.getAccount || !adapter.unlinkAccount) return null
  const former = { provider: account.provider, providerAccountId: formerId }
  const stored = await adapter.getAccount(formerId, account.provider)
  if (!stored) return null
  await adapter.unlinkAccount(former)
  await adapter.linkAccount({ ...stored, providerAccountId: account.providerAccountId })
  ctx.logger.debug("account re-keyed", { provider: account.provider })
  return adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId })
}

async function accountAtRest(
  ctx: RequestContext,
  account: Account,
  dpopKey: Record<string, unknown> | undefined,
): Promise<Account> {
  const { config } = ctx
  const sealedKey = dpopKey ? { dpop_key: await dpopKeyAtRest(config.secret, dpopKey) } : {}
  if (!config.tokens.encryptAtRest) return { ...account, ...sealedKey }
  const out: Account = { ...account, ...sealedKey }
  for (const column of ["access_token", "refresh_token"] as const) {
    const value = account[column]
    if (typeof value === "string" && value !== "") out[column] = await tokenAtRest(config.secret, value, true)
  }
  return out
}

/**
 * Database side of a refresh provider's sign-in: the pointer from the user to this account (the session row names
 * only the user), and, for an account linked before, its token columns replaced by this sign-in's tokens.
 */
async function keepRefreshTokens(
  ctx: RequestContext,
  provider: ResolvedOAuthProvider,
  userId: string,
  account: Account,
  existing: boolean,
): Promise<void> {
  const { config } = ctx
  const adapter = config.stores.oauth
  if (!adapter) return
  // A store failure does not fail the sign-in: refreshing then answers `no_refresh_token` until the next sign-in.
  await config.store
    .set(accountPointerKey(provider.id, userId), account.providerAccountId, config.session.maxAge)
    .catch((error: unknown) => config.logger.error(error as Error))
  if (!existing) return
  const picked = (provider.account(account) ?? {}) as Record<string, unknown>
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null)
  const patch: AccountTokenPatch = {
    access_token: str(picked.access_token),
    refresh_token: str(picked.refresh_token),
    expires_at: typeof picked.expires_at === "number" ? picked.expires_at : null,
    scope: str(picked.scope),
    token_type: str(picked.token_type),
    id_token: str(picked.id_token),
    // A new sign-in replaces the key its tokens are bound to (or clears the one of an earlier DPoP sign-in).
    dpop_key: str(account.dpop_key),
  }
  const key = { provider: account.provider, providerAccountId: account.providerAccountId }
  if (adapter.updateAccountTokens) await adapter.updateAccountTokens(key, patch)
  else if (adapter.unlinkAccount && adapter.getAccount) {
    const current = await adapter.getAccount(account.providerAccountId, account.provider)
    if (!current) return
    const next: Record<string, unknown> = { ...current }
    for (const [column, value] of Object.entries(patch)) {
      if (value === null) delete next[column]
      else next[column] = value
    }
    await adapter.unlinkAccount(key)
    await adapter.linkAccount(next as AdapterAccount)
  }
}

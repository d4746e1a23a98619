/**
 * The two ends every sign-in flow shares (credentials, OAuth with and without an adapter, email, and passkeys next):
 * asking the `signIn` callback, and finishing with one session and one redirect.
 */
import type { AdapterUser } from "../../storage/adapter"
import { AccessDenied, AuthError, TwoFactorRequired } from "../../errors"
import { subjectOfIdToken, type IdpRecord } from "../../oauth"
import { recordFromAccount } from "./tokens"
import type { RequestContext } from "../kernel/context"
import type { AuthResult } from "../kernel/response"
import { issueSession } from "./"
import type { Account, CallbacksOptions, Profile, TwoFactorUsed, User } from "../kernel/types"
import { sessionContext } from "./context"
import { tokenAnswerHeaders } from "../kernel/bearer"
import type { SessionContext } from "./types"
import { secondFactorFor, startChallenge } from "./two-factor/decide"
import { issueTrust, restoreTrust, useTrustedDevice, type SpentTrust } from "./two-factor/trust"
import { recordAudit } from "../kernel/audit"
import { assertNotBanned } from "./ban"

/**
 * Calls `callbacks.signIn`. Returns `undefined` to continue, or a URL (through the `redirect` callback) when the
 * callback returned a string. `false` or a thrown plain error becomes `AccessDenied`; a thrown `AuthError` passes.
 *
 * @example
 * ```ts
 * const redirect = await runSignInCallback(ctx, { user, account, credentials })
 * if (redirect) return { redirect }
 * ```
 */
export async function runSignInCallback(
  ctx: RequestContext,
  params: Parameters<CallbacksOptions["signIn"]>[0],
): Promise<string | undefined> {
  let result: boolean | string
  try {
    result = await ctx.config.callbacks.signIn(params)
  } catch (error) {
    if (error instanceof AuthError) throw error
    throw new AccessDenied("The signIn callback threw", { cause: error as Error })
  }
  if (typeof result === "string") return ctx.config.callbacks.redirect({ url: result, baseUrl: ctx.origin })
  if (!result) throw new AccessDenied("AccessDenied")
  return undefined
}

/** The signed-in user as the flow stored (or, without an adapter, received) it. */
export interface FinishSignInParams {
  user: User | AdapterUser
  account: Account | null
  profile?: Profile
  /** `true` for a user created by this sign-in (trigger `signUp`, the `newUser` page); absent for credentials. */
  isNewUser?: boolean
  /** An OIDC sign-in: what the session records for RP-initiated and back-channel logout. */
  idp?: IdpRecord
  /** A DPoP sign-in: the private key its tokens are bound to, kept with them (never given to callbacks). */
  dpopKey?: Record<string, unknown>
  /** A passkey sign-in whose assertion carried the user-verification flag. */
  userVerified?: boolean
}

/** How a sign-in that passed every factor ends: the second factor it passed, and where it goes. */
export interface CompleteSignInOptions {
  twoFactor?: TwoFactorUsed
  /** The callback URL recorded when the first factor passed (default: this request's). */
  callbackUrl?: string
  /** The trust cookie that skipped the second factor: renewed when a session is issued, handed back when none is. */
  spentTrust?: SpentTrust
}

/**
 * Ends a sign-in the `signIn` callback allowed. When the user has a second factor (and no trusted device skips it),
 * no session is issued: the pending sign-in is sealed and the browser goes to the two-factor page. Otherwise
 * {@link completeSignIn}. Every sign-in flow ends here, so no first factor can skip the second.
 *
 * @example
 * ```ts
 * return finishSignIn(ctx, { user, account, profile, isNewUser })
 * ```
 */
export async function finishSignIn(ctx: RequestContext, params: FinishSignInParams): Promise<AuthResult> {
  const method = await secondFactorFor(ctx, params)
  if (method === null) return completeSignIn(ctx, params)
  // tokens.md T1.4: a token sign-in cannot run a second step (no pending cookie): the app signs such users in through
  // the browser flow of T2, which runs the second factor in the browser.
  if (ctx.tokenAnswer) throw new TwoFactorRequired("A second factor is required: sign in through the browser")
  const spent = await useTrustedDevice(ctx, String(params.user.id))
  if (spent) {
    await recordAudit(sessionContext(ctx), {
      type: "twofactor.used",
      userId: String(params.user.id),
      details: { method: "trusted-device" },
    })
    try {
      return await completeSignIn(ctx, params, { twoFactor: "trusted-device", spentTrust: spent })
    } catch (error) {
      // The cookie is single use and already spent: a sign-in that failed after it must not cost the device its trust.
      await restoreTrust(ctx, spent)
      throw error
    }
  }
  const { user, account, profile, isNewUser, idp, dpopKey } = params
  // A banned user is refused before the second step too, so the challenge tells nothing about the account.
  await assertNotBanned(sessionContext(ctx), String(user.id))
  return startChallenge(
    ctx,
    {
      user,
      account,
      ...(profile ? { profile } : {}),
      ...(isNewUser === undefined ? {} : { isNewUser }),
      ...(idp ? { idp } : {}),
      ...(dpopKey ? { dpopKey } : {}),
    },
    method,
  )
}

/**
 * Issues the session of a sign-in that passed every factor (`issueSession`, which fires `events.signIn`), then
 * redirects to `pages.newUser` (with the callback URL) for a new user, else to the callback URL.
 *
 * @example
 * ```ts
 * return completeSignIn(ctx, pending, { twoFactor: "totp", callbackUrl: pending.callbackUrl })
 * ```
 */
export async function completeSignIn(
  ctx: RequestContext,
  params: FinishSignInParams,
  options: CompleteSignInOptions = {},
): Promise<AuthResult> {
  const { user, account, profile, isNewUser, idp } = params
  const callbackUrl = options.callbackUrl ?? ctx.callbackUrl
  const provider = account ? ctx.config.providerById.get(account.provider) : undefined
  const keepsTokens = provider && "refresh" in provider && provider.refresh && ctx.config.session.strategy === "jwt"
  const slice = sessionContext(ctx)
  const userId = user.id === undefined || user.id === null ? null : String(user.id)
  // A banned user gets no session (accounts.md §3.4); the reason never reaches the client.
  await assertNotBanned(slice, userId)
  const issued = await issueSession(slice, {
    user,
    account,
    ...(profile ? { profile } : {}),
    ...(isNewUser === undefined ? {} : { isNewUser }),
    trigger: isNewUser ? "signUp" : "signIn",
    ...(idp ? { idp } : {}),
    ...(options.twoFactor ? { twoFactor: options.twoFactor } : {}),
    ...(keepsTokens && account
      ? {
          tokens: {
            provider: account.provider,
            record: {
              ...recordFromAccount(account, subjectOfIdToken(account.id_token)),
              ...(params.dpopKey ? { dk: params.dpopKey } : {}),
            },
          },
        }
      : {}),
  })
  // Trust is renewed (new cookie, full lifetime) only by a session; a sign-in without one hands the spent cookie back.
  const trust = options.spentTrust
  if (trust) await (issued ? issueTrust(ctx, trust.userId) : restoreTrust(ctx, trust))
  await recordAudit(slice, {
    type: "signin",
    userId,
    provider: account?.provider ?? ctx.provider?.id ?? null,
    details: { newUser: isNewUser === true },
  })
  if (ctx.tokenAnswer) {
    // tokens.md T1.4: the session goes to the client in JSON, never as a cookie (the `jwt` callback may issue none).
    const issued = slice.tokenOut
    if (!issued?.token) throw new AccessDenied("No session was issued")
    return { status: 200, headers: { ...tokenAnswerHeaders }, body: { token: issued.token, expires: issued.expires } }
  }
  const newUser = ctx.config.pages.newUser
  if (isNewUser && newUser) {
    const query = new URLSearchParams({ callbackUrl })
    return { redirect: `${newUser}${newUser.includes("?") ? "&" : "?"}${query}` }
  }
  return { redirect: callbackUrl }
}

/**
 * Issues a new session handed to a client as a token instead of a cookie (the native code exchange of tokens.md
 * T2.4): nothing of the request's cookies is read, replaced or deleted. Fires `events.signIn` as every sign-in does.
 *
 * @example
 * ```ts
 * const { token, expires } = await issueTokenSession(ctx, { user, account })
 * ```
 */
export async function issueTokenSession(
  ctx: RequestContext,
  params: { user: User | AdapterUser; account: Account },
): Promise<{ token: string; expires: number }> {
  const slice: SessionContext = { ...sessionContext(ctx), requestCookies: {}, memo: {}, tokenOut: {} }
  await issueSession(slice, { ...params, trigger: "signIn" })
  const issued = slice.tokenOut
  if (!issued?.token || issued.expires === undefined) throw new AccessDenied("No session was issued")
  return { token: issued.token, expires: issued.expires }
}

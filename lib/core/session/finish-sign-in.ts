/**
 * The two ends every sign-in flow shares (credentials, OAuth with and without an adapter, email, and passkeys next):
 * asking the `signIn` callback, and finishing with one session and one redirect.
 */
import type { AdapterUser } from "../../storage/adapter"
import { AccessDenied, AuthError } from "../../errors"
import { subjectOfIdToken, type IdpRecord } from "../../oauth"
import { recordFromAccount } from "./tokens"
import type { RequestContext } from "../kernel/context"
import type { AuthResult } from "../kernel/response"
import { issueSession } from "./"
import type { Account, CallbacksOptions, Profile, User } from "../kernel/types"
import { sessionContext } from "./context"
import { tokenAnswerHeaders } from "../kernel/bearer"
import type { SessionContext } from "./types"

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
}

/**
 * Ends a sign-in the `signIn` callback allowed: issues the session (`issueSession`, which fires `events.signIn`), then
 * redirects to `pages.newUser` (with the callback URL) for a new user, else to the callback URL.
 *
 * @example
 * ```ts
 * return finishSignIn(ctx, { user, account, profile, isNewUser })
 * ```
 */
export async function finishSignIn(ctx: RequestContext, params: FinishSignInParams): Promise<AuthResult> {
  const { user, account, profile, isNewUser, idp } = params
  const provider = account ? ctx.config.providerById.get(account.provider) : undefined
  const keepsTokens = provider && "refresh" in provider && provider.refresh && ctx.config.session.strategy === "jwt"
  const slice = sessionContext(ctx)
  await issueSession(slice, {
    user,
    account,
    ...(profile ? { profile } : {}),
    ...(isNewUser === undefined ? {} : { isNewUser }),
    trigger: isNewUser ? "signUp" : "signIn",
    ...(idp ? { idp } : {}),
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
  if (ctx.tokenAnswer) {
    // tokens.md T1.4: the session goes to the client in JSON, never as a cookie (the `jwt` callback may issue none).
    const issued = slice.tokenOut
    if (!issued?.token) throw new AccessDenied("No session was issued")
    return { status: 200, headers: { ...tokenAnswerHeaders }, body: { token: issued.token, expires: issued.expires } }
  }
  const newUser = ctx.config.pages.newUser
  if (isNewUser && newUser) {
    const query = new URLSearchParams({ callbackUrl: ctx.callbackUrl })
    return { redirect: `${newUser}${newUser.includes("?") ? "&" : "?"}${query}` }
  }
  return { redirect: ctx.callbackUrl }
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

/**
 * RP-initiated logout 1.0: the end-session redirect built by POST /signout, and
 * GET /signout-callback/:provider, which brings the user back to the destination sealed in `state`.
 */
import { randomBytes } from "node:crypto"
import type { AdapterSession } from "../../../storage/adapter"
import { endSessionEndpointOf, type IdpRecord, type ResolvedOAuthProvider } from "../../../oauth"
import { checkSealer } from "../../kernel/checks"
import { actionUrl, type RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"

/** Salt and lifetime (seconds) of the sealed sign-out `state`. */
export const SIGNOUT_STATE_SALT = "gatehouse.signout-state"
const SIGNOUT_STATE_MAX_AGE = 600

/** The sealed sign-out `state`'s value (bound to the provider and the `signoutState` purpose by the sealer). */
interface SignOutState {
  cb: string
  n: string
}

const warnedUnavailable = new WeakSet<ResolvedOAuthProvider>()

function oidcProviderOf(ctx: RequestContext, id: string | null | undefined): ResolvedOAuthProvider | undefined {
  if (!id) return undefined
  const provider = ctx.config.providerById.get(id)
  return provider && (provider.type === "oidc" || provider.type === "oauth") ? provider : undefined
}

/** What a signed-out session tells about its OIDC sign-in: the JWT's `idp`, or the database row's columns. */
export async function idpOfDatabaseSession(
  ctx: RequestContext,
  session: AdapterSession | null | undefined | void,
): Promise<{ provider: string; idToken?: string } | undefined> {
  if (!session?.provider) return undefined
  const provider = oidcProviderOf(ctx, session.provider)
  if (!provider?.logout?.rpInitiated) return { provider: session.provider }
  let idToken: string | undefined
  const adapter = ctx.config.stores.logout
  if (provider.logout.idTokenHint && session.idpSub && adapter?.getAccount) {
    try {
      const account = await adapter.getAccount(session.idpSub, session.provider)
      if (typeof account?.id_token === "string") idToken = account.id_token
    } catch (error) {
      ctx.logger.error(error as Error)
    }
  }
  return { provider: session.provider, idToken }
}

/** The `idp` record of a JWT session, as `{provider, idToken}`. */
export function idpOfJwtSession(idp: IdpRecord | undefined): { provider: string; idToken?: string } | undefined {
  return idp ? { provider: idp.p, idToken: idp.idt } : undefined
}

/**
 * The end-session URL for a session that signed in through `signedIn.provider`, or undefined when sign-out stays local
 * (the provider is not RP-initiated, or no end-session endpoint is known: then one warning per provider).
 *
 * @example
 * ```ts
 * const url = await endSessionUrl(ctx, { provider: "corp", idToken }) // "https://op/session/end?client_id=…"
 * ```
 */
export async function endSessionUrl(
  ctx: RequestContext,
  signedIn: { provider: string; idToken?: string } | undefined,
): Promise<string | undefined> {
  const provider = oidcProviderOf(ctx, signedIn?.provider)
  if (!provider?.logout?.rpInitiated || !signedIn) return undefined
  const endpoint = await endSessionEndpointOf(provider)
  if (!endpoint) {
    if (!warnedUnavailable.has(provider)) {
      warnedUnavailable.add(provider)
      ctx.logger.warn("rp-initiated-logout-unavailable")
    }
    return undefined
  }
  const state = await checkSealer(ctx.config.secret).seal<SignOutState>(
    { purpose: "signoutState", provider: provider.id, salt: SIGNOUT_STATE_SALT, maxAge: SIGNOUT_STATE_MAX_AGE },
    { cb: ctx.callbackUrl, n: randomBytes(16).toString("base64url") },
  )
  const url = new URL(endpoint)
  const { logout } = provider
  for (const [name, value] of Object.entries(logout.params)) url.searchParams.set(name, value)
  url.searchParams.set("client_id", provider.clientId)
  url.searchParams.set(
    logout.postLogoutRedirectParam,
    logout.postLogoutRedirectUri ?? actionUrl(ctx, "signout-callback", provider.id),
  )
  url.searchParams.set("state", state)
  if (logout.idTokenHint && signedIn.idToken) url.searchParams.set("id_token_hint", signedIn.idToken)
  return url.href
}

/**
 * GET /signout-callback/:provider?state=S: no CSRF (it changes nothing). A valid `state` sealed for this provider
 * sends the user to its destination, re-validated by the `redirect` callback; anything else goes to the app origin
 * with a `signout-state-invalid` warning. Never an error page: the user is already signed out.
 *
 * @example
 * ```ts
 * const result = await signOutCallbackAction(ctx)
 * ```
 */
export async function signOutCallbackAction(ctx: RequestContext): Promise<AuthResult> {
  const opened = await checkSealer(ctx.config.secret).open<Partial<SignOutState>>(
    { purpose: "signoutState", provider: ctx.request.providerId ?? "", salt: SIGNOUT_STATE_SALT },
    ctx.request.query.state,
  )
  const payload = opened.ok ? opened.value : null
  if (!payload || typeof payload.cb !== "string") {
    ctx.logger.warn("signout-state-invalid")
    return { redirect: ctx.origin }
  }
  const target = await ctx.config.callbacks.redirect({ url: payload.cb, baseUrl: ctx.origin })
  return { redirect: target }
}

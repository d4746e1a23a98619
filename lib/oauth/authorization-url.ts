/** Sign-in start: builds the authorization URL and seals the state/PKCE/nonce check cookies. */
import * as oauth from "oauth4webapi"
import { createState, discardCheckCookies, sealCheck } from "./checks"
import { assertProxyOriginAtStart } from "./proxy"
import { engineError } from "./engine-error"
import { browserUrl, pushAuthorizationRequest, pushes, requestObjectOf } from "./par"
import { assertSecureUrl, clientOf, resolveServer } from "./server"
import type { OAuthFlowContext } from "./types"

// Set last, so neither the provider's params nor the request's query can change them.
const PINNED = [
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "code_challenge",
  "code_challenge_method",
  "nonce",
]

/**
 * The redirect URI sent to the provider: this deployment's callback, or the redirect proxy's when one is configured
 * and this deployment is not the proxy.
 *
 * @example
 * ```ts
 * redirectUriOf(ctx) // "https://app.example.com/auth/callback/github"
 * ```
 */
export function redirectUriOf(ctx: OAuthFlowContext): string {
  const proxy = ctx.provider.redirectProxyUrl
  if (proxy && new URL(proxy).origin !== ctx.origin) return `${proxy}/callback/${ctx.provider.id}`
  return ctx.callbackUrl
}

/**
 * Whether the server says it enforces PKCE with S256. When it does not, PKCE alone may be ignored by it, so a one-time
 * `state` is added on top (RFC 9700 section 2.1.1; OI-code-injection-nopkce).
 */
function advertisesS256(as: oauth.AuthorizationServer): boolean {
  return Array.isArray(as.code_challenge_methods_supported) && as.code_challenge_methods_supported.includes("S256")
}

/**
 * Starts an OAuth/OIDC sign-in: returns the authorization URL (code flow, PKCE S256, plus `state` and `nonce` when
 * the provider checks them; `state` also whenever the server does not advertise S256) and writes the sealed check cookies through `ctx.setCookie`.
 *
 * @example
 * ```ts
 * const url = await startOAuthSignIn(ctx)
 * return { status: 302, redirect: url }
 * ```
 */
export async function startOAuthSignIn(ctx: OAuthFlowContext): Promise<string> {
  const { provider } = ctx
  const as = await resolveServer(provider, "authorization").catch((error: unknown) => {
    throw engineError(provider, error)
  })
  if (!as.authorization_endpoint) {
    throw new TypeError("Could not determine the authorization endpoint", { cause: { provider: provider.id } })
  }
  const url = new URL(as.authorization_endpoint)
  assertSecureUrl(provider, url, "authorization_endpoint")
  if (!provider.clientId) throw new TypeError("Missing clientId", { cause: { provider: provider.id } })

  for (const [name, value] of Object.entries(provider.authorization.params)) url.searchParams.set(name, value)
  for (const [name, value] of Object.entries(ctx.query)) {
    if (!PINNED.includes(name)) url.searchParams.set(name, value)
  }
  if (
    url.searchParams.has("response_mode") &&
    provider.formPost !== (url.searchParams.get("response_mode") === "form_post")
  ) {
    // The cookies' SameSite was decided from the provider config; a per-request switch would break the callback.
    url.searchParams.delete("response_mode")
    if (provider.formPost) url.searchParams.set("response_mode", "form_post")
  }
  url.searchParams.set("response_type", "code")
  url.searchParams.set("client_id", provider.clientId)
  url.searchParams.set("redirect_uri", redirectUriOf(ctx))

  assertProxyOriginAtStart(ctx)
  if (provider.checks.includes("state") || !advertisesS256(as)) {
    const origin = provider.redirectProxyUrl ? ctx.callbackUrl : undefined
    const state = await createState(ctx.secret, origin)
    url.searchParams.set("state", state)
    await sealCheck(ctx, "state", state)
  } else {
    // A state cookie left by an earlier flow would otherwise be demanded by this flow's callback.
    discardCheckCookies(ctx, ["state"])
  }
  // PKCE is never optional (BCP-03/04): a fresh 43-character verifier per request, S256 only.
  const codeVerifier = oauth.generateRandomCodeVerifier()
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier))
  url.searchParams.set("code_challenge_method", "S256")
  await sealCheck(ctx, "pkce", codeVerifier)
  if (provider.checks.includes("nonce")) {
    const nonce = oauth.generateRandomNonce()
    url.searchParams.set("nonce", nonce)
    await sealCheck(ctx, "nonce", nonce)
  }
  const secured = await securedUrl(ctx, as, url)
  ctx.logger.debug("authorization url is ready", { provider: provider.id, url: `${url.origin}${url.pathname}` })
  return secured.href
}

/**
 * The URL the browser is sent to: pushed first when the provider pushes (only `client_id` and `request_uri` remain),
 * or signed into a request object (`client_id` and `request`), else `url` as it is.
 */
async function securedUrl(ctx: OAuthFlowContext, as: oauth.AuthorizationServer, url: URL): Promise<URL> {
  const { provider } = ctx
  const { requestObject } = provider.security
  if (pushes(provider, as, ctx.logger)) {
    try {
      return await pushAuthorizationRequest(provider, as, clientOf(provider), url.searchParams, ctx.logger)
    } catch (error) {
      // A failed push never falls back to the front channel; the checks of this attempt are void.
      discardCheckCookies(ctx)
      throw engineError(provider, error)
    }
  }
  if (!requestObject) return url
  const request = await requestObjectOf(requestObject, as, clientOf(provider), url.searchParams)
  return browserUrl(`${url.origin}${url.pathname}`, provider.clientId, "request", request)
}

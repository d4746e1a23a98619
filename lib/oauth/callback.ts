/** Callback: redirect-proxy hop, checks, RFC 9207 `iss`, code exchange, ID token and userinfo validation, profile. */
import * as oauth from "oauth4webapi"
import type { Profile } from "../models"
import { OAuthCallbackError, OAuthProtocolError } from "../errors"
import { engineError } from "./engine-error"
import type { OAuthConfig, TokenSet } from "../providers/types"
import { redirectUriOf } from "./authorization-url"
import { discardCheckCookies, useCheck } from "./checks"
import { asksForNonce, assertDPoPBound, newDPoPKey, withNonceRetry, type DPoPKey } from "./dpop"
import { assertTenantAllowed, entraAuthResponse, entraServer } from "./entra"
import { providerFetch } from "./fetch"
import { proxyHop } from "./proxy"
import { verifyIdToken } from "./id-token"
import { buildUserAndAccount } from "./profile"
import { clientAuthOf, clientOf, requestOptions, resolveServer } from "./server"
import type { IdpRecord, OAuthFlowContext, OAuthSignInResult, ResolvedOAuthProvider } from "./types"

/**
 * Finishes an OAuth/OIDC sign-in from the callback parameters (GET query or form_post body). Deletes the check cookies
 * it finds, and either answers a redirect-proxy hop or returns the user, account, profile and tokens.
 *
 * @throws InvalidCheck for a missing/invalid check cookie or an undecodable proxied state; OAuthCallbackError when the
 *   provider answered `error=...`; OAuthProfileParseError when the profile cannot be mapped; OAuthProtocolError for any
 *   other protocol failure (`cause.code`: the oauth4webapi or jose code), with code `oauth_unavailable` when the
 *   provider could not be reached or did not answer within `httpTimeout`.
 * @example
 * ```ts
 * const result = await finishOAuthSignIn(ctx, new URL(request.url).searchParams)
 * if (result.kind === "proxy") return redirect(result.redirect)
 * await issueSession(result.user, result.account)
 * ```
 */
export async function finishOAuthSignIn(ctx: OAuthFlowContext, params: URLSearchParams): Promise<OAuthSignInResult> {
  const hop = await proxyHop(ctx, params)
  if (hop) return hop
  try {
    return await exchangeAndValidate(ctx, params)
  } catch (error) {
    throw engineError(ctx.provider, error)
  } finally {
    discardCheckCookies(ctx)
  }
}

async function exchangeAndValidate(ctx: OAuthFlowContext, received: URLSearchParams): Promise<OAuthSignInResult> {
  const { provider } = ctx
  const { entra } = provider
  let as = await resolveServer(provider, "callback")
  const client = clientOf(provider)
  // Entra's multi-tenant metadata announces a template, not an issuer: an `iss` parameter is checked against the
  // tenant form here and against the ID token below.
  const { params, iss: authIss } = entra ? entraAuthResponse(entra, provider.id, received) : { params: received }
  if (entra && entra.mode !== "single") as = { ...as, authorization_response_iss_parameter_supported: false }
  // FAPI 2.0 requires the RFC 9207 `iss` even when the metadata does not advertise it (mix-up defence).
  if (provider.security.fapi2 && !params.has("iss") && !params.has("error")) {
    throw new OAuthProtocolError("The authorization response has no iss", {
      code: "missing_iss",
      cause: { provider: provider.id },
    })
  }

  // A state cookie means the start added `state` (configured, or because the server does not advertise S256): then
  // it is required, so a code injected without this browser's state is refused even if the server ignores PKCE.
  const stateIssued = ctx.requestCookies[ctx.checkCookies.state.name] !== undefined
  const expectedState =
    provider.checks.includes("state") || stateIssued ? await useCheck(ctx, "state") : oauth.skipStateCheck
  let callbackParams: URLSearchParams
  try {
    // Compares `state`, and `iss` (RFC 9207: required when the metadata says the server sends it).
    callbackParams = oauth.validateAuthResponse(as, client, params, expectedState)
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      throw new OAuthCallbackError("OAuth Provider returned an error", {
        cause: { providerId: provider.id, ...Object.fromEntries(params) },
      })
    }
    throw error
  }

  const codeVerifier = await useCheck(ctx, "pkce")
  const expectedNonce = provider.checks.includes("nonce") ? await useCheck(ctx, "nonce") : oauth.expectNoNonce
  const clientAuth = await clientAuthOf(provider)
  // A DPoP provider binds this sign-in's tokens to a key of its own, made just before the code exchange.
  const dpop = provider.security.dpop ? await newDPoPKey(provider) : undefined
  const grant = async () => {
    let response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      callbackParams,
      redirectUriOf(ctx),
      codeVerifier,
      { ...requestOptions(provider), ...(dpop ? { DPoP: dpop.handle } : {}) },
    )
    if (provider.token.conform) response = (await provider.token.conform(response)) ?? response
    if (provider.type === "oauth") response = await withoutIdToken(response)
    if (entra) as = await entraServer(entra, provider.id, as, response.clone(), authIss)
    return oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce,
      requireIdToken: provider.type === "oidc",
    })
  }
  const result = dpop ? await withNonceRetry(grant, provider, ctx.logger) : await grant()
  if (dpop) assertDPoPBound(result.token_type, provider.id)
  // oauth4webapi validated the claims; the signature is checked here, always.
  if (typeof result.id_token === "string") await verifyIdToken(provider, as, result.id_token)

  const tokens: TokenSet = { ...result }
  if (tokens.expires_in !== undefined) tokens.expires_at = Math.floor(Date.now() / 1000) + Number(tokens.expires_in)
  const claims = oauth.getValidatedIdTokenClaims(result)
  if (entra) await assertTenantAllowed(entra, provider.id, claims ?? {}, ctx.logger)
  const profile: Profile =
    provider.type === "oidc" && provider.idToken && claims
      ? { ...claims }
      : await fetchProfile(provider, as, client, tokens, claims?.sub, dpop)
  // Sign in with Apple posts the user's name once, on the first sign-in, as the form field `user`.
  const firstSignInUser = provider.formPost ? postedUser(received) : undefined
  if (firstSignInUser) profile.user = firstSignInUser

  const { user, account, formerProviderAccountId } = await buildUserAndAccount(provider, profile, tokens)
  // The thumbprint is public and callbacks may read it; the private key travels apart, to the token store only.
  if (dpop) account.dpop_jkt = dpop.jkt
  ctx.logger.debug("oauth callback verified", { provider: provider.id })
  const idp = claims && provider.logout ? idpRecord(provider, claims, result.id_token) : undefined
  return {
    kind: "profile",
    user,
    account,
    profile,
    tokens,
    ...(idp ? { idp } : {}),
    ...(formerProviderAccountId ? { formerProviderAccountId } : {}),
    ...(dpop ? { dpop: { jwk: dpop.jwk, jkt: dpop.jkt } } : {}),
  }
}

/**
 * The token response of a plain OAuth 2 provider without its `id_token`: such a provider's identity comes from its
 * userinfo endpoint, and an ID token it returns anyway (an `openid` scope on a provider without OpenID metadata, such
 * as Vercel or PayPal) can be neither verified nor trusted, so it is neither checked nor kept.
 */
export async function withoutIdToken(response: Response): Promise<Response> {
  if (!response.ok || !(response.headers.get("content-type") ?? "").includes("json")) return response
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as Record<string, unknown> | null
  if (!body || typeof body !== "object" || !("id_token" in body)) return response
  const { id_token: _dropped, ...rest } = body
  const headers = new Headers(response.headers)
  headers.delete("content-length")
  return new Response(JSON.stringify(rest), { status: response.status, statusText: response.statusText, headers })
}

/** The largest `user` form field read (Apple's is about 100 bytes). */
const MAX_POSTED_USER = 2048

/** The JSON object of a form_post callback's `user` field; `undefined` when absent, too long or not an object. */
function postedUser(params: URLSearchParams): Record<string, unknown> | undefined {
  const raw = params.get("user")
  if (raw === null || raw.length > MAX_POSTED_USER) return undefined
  try {
    const value = JSON.parse(raw) as unknown
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** What logout needs to remember of this sign-in: keys scoped by provider, the OP's `iat` as auth time. */
function idpRecord(provider: ResolvedOAuthProvider, claims: oauth.IDToken, idToken: unknown): IdpRecord {
  const keepIdToken = provider.logout?.rpInitiated && provider.logout.idTokenHint && typeof idToken === "string"
  return {
    p: provider.id,
    iss: claims.iss,
    sub: claims.sub,
    ...(typeof claims.sid === "string" && claims.sid ? { sid: claims.sid } : {}),
    at: typeof claims.iat === "number" ? claims.iat : Math.floor(Date.now() / 1000),
    ...(keepIdToken ? { idt: idToken } : {}),
  }
}

async function fetchProfile(
  provider: ResolvedOAuthProvider,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  tokens: TokenSet,
  idTokenSub: string | undefined,
  dpop?: DPoPKey,
): Promise<Profile> {
  let profile: Profile
  if (provider.userinfo.request) {
    profile = await provider.userinfo.request({
      tokens,
      provider: provider as unknown as OAuthConfig<Profile>,
      fetch: providerFetch(provider),
    })
  } else {
    if (!as.userinfo_endpoint) throw new TypeError("No userinfo endpoint", { cause: { provider: provider.id } })
    // The access token goes in the Authorization header, never in the query (UI-02); with DPoP, as `DPoP <token>`
    // beside a proof carrying the token's hash.
    const options = { ...requestOptions(provider), ...(dpop ? { DPoP: dpop.handle } : {}) }
    const request = () => oauth.userInfoRequest(as, client, tokens.access_token as string, options)
    if (provider.type === "oidc") {
      // Checks that the userinfo `sub` is the ID token's (UI-01).
      const read = async () =>
        oauth.processUserInfoResponse(as, client, idTokenSub ?? oauth.skipSubjectCheck, await request())
      return { ...(dpop ? await withNonceRetry(read, provider) : await read()) }
    }
    let response = await request()
    if (dpop && asksForNonce(response)) response = await request()
    if (!response.ok) throw new Error("Userinfo request failed", { cause: { status: response.status } })
    profile = (await response.json()) as Profile
  }
  if (!profile || typeof profile !== "object" || Array.isArray(profile)) {
    throw new TypeError("Userinfo is not an object", { cause: { provider: provider.id } })
  }
  if (idTokenSub !== undefined && profile.sub !== undefined && profile.sub !== idTokenSub) {
    throw new Error("Userinfo sub does not match the ID token", { cause: { provider: provider.id } })
  }
  return profile
}

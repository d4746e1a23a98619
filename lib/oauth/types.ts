/** Types shared by the OAuth engine and the core: the resolved provider, the per-request flow context, the result. */
import type { SerializeOptions } from "cookie"
import type { Account, Awaitable, Profile, TokenSet, User } from "../models"
import type { LoggerInstance } from "../logger"
import type { OAuthClientMetadata, OAuthConfig, ProviderStyle } from "../providers/types"
import type { customFetch } from "../symbols"
import type { ResolvedEntra } from "./entra"
import type { ResolvedSecurity } from "./security"

/** The checks Gatehouse runs on a callback; `pkce` is always present. */
export type ResolvedCheck = "pkce" | "state" | "nonce"

/**
 * An OAuth/OIDC provider after {@link normalizeOAuthProvider}: endpoints parsed, checks completed, defaults applied.
 * Frozen; resolved once per config.
 */
export interface ResolvedOAuthProvider {
  readonly id: string
  readonly name: string
  readonly type: "oauth" | "oidc"
  readonly issuer?: string
  readonly wellKnown?: string
  /** Authorization endpoint (undefined `url`: discovered) and the params added to it (`scope` always set). */
  readonly authorization: { readonly url?: string; readonly params: Readonly<Record<string, string>> }
  readonly token: {
    readonly url?: string
    readonly conform?: (response: Response) => Awaitable<Response | undefined>
    readonly clientPrivateKey?: CryptoKey | Record<string, unknown>
  }
  readonly userinfo: {
    readonly url?: string
    readonly request?: (context: {
      tokens: TokenSet
      provider: OAuthConfig<Profile>
      fetch: typeof fetch
    }) => Awaitable<Profile>
  }
  readonly clientId: string
  readonly clientSecret?: string
  readonly client: Readonly<OAuthClientMetadata>
  readonly checks: readonly ResolvedCheck[]
  readonly profile: (profile: Profile, tokens: TokenSet) => Awaitable<User>
  readonly account: (tokens: TokenSet) => Partial<Account> | undefined
  /** The account id an earlier version of the provider stored, for re-keying (see `OAuthConfig.formerAccountId`). */
  readonly formerAccountId?: (profile: Profile) => unknown
  readonly style?: ProviderStyle
  readonly allowDangerousEmailAccountLinking: boolean
  /** The provider verifies every address it returns. */
  readonly emailAlwaysVerified: boolean
  /** Audiences besides `clientId` an ID token may carry. */
  readonly trustedAudiences: readonly string[]
  /** OIDC logout settings, with defaults applied (absent when the provider configures none). */
  readonly logout?: ResolvedOidcLogout
  /** Refresh-token rotation, when the provider opts in: `window` in seconds. */
  readonly refresh?: { readonly window: number }
  /** Base URL of the redirect proxy (`<proxy origin><basePath>`), when one is configured and usable. */
  readonly redirectProxyUrl?: string
  /** Origins (or `https://*.suffix` patterns) the redirect proxy may forward a callback to. */
  readonly redirectProxyAllowedOrigins: readonly string[]
  /** OIDC: read the profile from the ID token (true) or from userinfo (false). */
  readonly idToken: boolean
  /** The authorization request asks for `response_mode=form_post`. */
  readonly formPost: boolean
  readonly allowInsecureUnsignedIdTokens: boolean
  readonly allowInsecureRequests: boolean
  /** PAR, DPoP, signed request objects and the `fapi2` preset. */
  readonly security: ResolvedSecurity
  /** Microsoft Entra ID's issuer and tenant rules, for a provider that applies them. */
  readonly entra?: ResolvedEntra
  /** Time limit of each outgoing request of this provider, in ms (the config's `httpTimeout`). */
  readonly httpTimeout: number
  readonly [customFetch]?: typeof fetch
}

/** {@link OidcLogoutConfig} with defaults applied. */
export interface ResolvedOidcLogout {
  readonly rpInitiated: boolean
  readonly endSessionEndpoint?: string
  readonly idTokenHint: boolean
  readonly postLogoutRedirectUri?: string
  readonly postLogoutRedirectParam: string
  readonly params: Readonly<Record<string, string>>
  readonly backchannel: boolean
  readonly legacyUserWide: boolean
}

/**
 * What Gatehouse records about an OIDC sign-in for logout: provider id, issuer, subject, the OP session id, the auth
 * time (the ID token's `iat`, OP clock) and, for RP-initiated logout with `idTokenHint`, the ID token itself.
 */
export interface IdpRecord {
  p: string
  iss: string
  sub: string
  sid?: string
  at: number
  idt?: string
}

/** Name and serialize options of one check cookie, as the core computed them for this request. */
export interface CheckCookie {
  name: string
  options: SerializeOptions
}

/**
 * The core's check sealer (`lib/core/checks.ts`), as far as the engine uses it: values bound to a purpose and a
 * provider, with an exact expiry. Injected so the engine does not import the core.
 */
export interface OAuthCheckSealer {
  seal(
    binding: { purpose: "state" | "pkce" | "nonce"; provider: string; salt: string; maxAge: number },
    value: string,
  ): Promise<string>
  open(
    binding: { purpose: "state" | "pkce" | "nonce"; provider: string; salt: string },
    token: string | undefined,
  ): Promise<{ ok: true; value: string } | { ok: false; reason: string }>
}

/** Everything the engine needs from one request; built by the core. */
export interface OAuthFlowContext {
  provider: ResolvedOAuthProvider
  /** Absolute: `${origin}${basePath}/callback/${provider.id}`. */
  callbackUrl: string
  /** The request origin, or AUTH_URL's origin when set. */
  origin: string
  /** Whether `origin` comes from configuration (`AUTH_URL`) rather than from the request. */
  configuredOrigin: boolean
  /** The first secret seals; all unseal. */
  secret: readonly string[]
  requestCookies: Record<string, string>
  checkCookies: { state: CheckCookie; pkceCodeVerifier: CheckCookie; nonce: CheckCookie }
  /** Writes a cookie to the per-request jar. */
  setCookie(name: string, value: string, options: SerializeOptions): void
  /** Seals and opens the check cookies' values. */
  checks: OAuthCheckSealer
  logger: LoggerInstance
  /** Sign-in start: query params of the incoming POST (they override the authorization params). */
  query: Record<string, string>
}

/** The outcome of a callback: a redirect-proxy hop, or a signed-in profile. */
export type OAuthSignInResult =
  | { kind: "proxy"; redirect: string }
  | {
      kind: "profile"
      user: User
      account: Account
      profile: Profile
      tokens: TokenSet
      idp?: IdpRecord
      /** The id an earlier version of the provider stored this account under, when it differs from today's. */
      formerProviderAccountId?: string
      /** The sign-in's DPoP key (private JWK) and its thumbprint, for a DPoP provider: stored with the tokens only. */
      dpop?: { jwk: Record<string, unknown>; jkt: string }
    }

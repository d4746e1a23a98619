/** The config of an OAuth 2 (`oauth`) or OpenID Connect (`oidc`) provider: endpoints, checks, logout, JAR, DPoP. */
import type { Account, Awaitable, Profile, TokenSet, User } from "../../models"
import type { customFetch } from "../../symbols"
import type { CommonProviderOptions, ProviderStyle } from "./common"

/** An endpoint given as a URL, or as `{url, params}` (params are added to the URL's query). */
export type EndpointConfig =
  | string
  | {
      url?: string
      params?: Record<string, unknown>
    }

/** Userinfo endpoint with an optional custom request (e.g. GitHub's email fallback). */
export type UserinfoEndpointConfig =
  | EndpointConfig
  | {
      url?: string
      params?: Record<string, unknown>
      /**
       * Fetches the profile yourself. Use the `fetch` given here for every request: it is the provider's
       * `customFetch` bounded by `httpTimeout`, and it does not follow redirects.
       */
      request?: (context: {
        tokens: TokenSet
        provider: OAuthConfig<Profile>
        fetch: typeof fetch
      }) => Awaitable<Profile>
    }

/** Token endpoint, optionally with a custom response conformer. */
export type TokenEndpointConfig =
  | EndpointConfig
  | {
      url?: string
      params?: Record<string, unknown>
      /** Fixes up a non-standard token response before it is validated (e.g. a provider nesting its tokens). */
      conform?: (response: Response) => Awaitable<Response | undefined>
      /** Private key for `private_key_jwt` client authentication. */
      clientPrivateKey?: CryptoKey | Record<string, unknown>
    }

export type OAuthCheck = "pkce" | "state" | "nonce" | "none"

/** Client registration metadata (subset used by Gatehouse). */
export interface OAuthClientMetadata {
  token_endpoint_auth_method?: "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none"
  id_token_signed_response_alg?: string
  authorization_signed_response_alg?: string
  [key: string]: unknown
}

/** The config of an OAuth 2 (`oauth`) or OpenID Connect (`oidc`) provider. */
export interface OAuthConfig<P = Profile> extends CommonProviderOptions {
  type: "oauth" | "oidc"
  /** The issuer identifier; discovery runs against `<issuer>/.well-known/openid-configuration`. */
  issuer?: string | undefined
  wellKnown?: string | undefined
  authorization?: EndpointConfig
  token?: TokenEndpointConfig
  userinfo?: UserinfoEndpointConfig
  clientId?: string | undefined
  clientSecret?: string | undefined
  client?: OAuthClientMetadata
  /** Checks on the callback. PKCE (S256) is always added; `state` is added with a redirect proxy. */
  checks?: OAuthCheck[]
  /** Maps the provider's profile to a user; `id` becomes the account's `providerAccountId`. */
  profile?: (profile: P, tokens: TokenSet) => Awaitable<User>
  /** Picks the token fields stored in the account. */
  account?: (tokens: TokenSet) => Partial<Account> | undefined
  /**
   * Gatehouse: the account id an earlier version of this provider stored (Bitbucket's `uuid` before `account_id`). An
   * account still stored under it is moved to the current id at its next sign-in, so no user is duplicated.
   */
  formerAccountId?: (profile: P) => string | null | undefined
  style?: ProviderStyle
  /**
   * Allows linking this OAuth account to an existing verified user with the same email (risky: see README). Gatehouse
   * links only when the profile says `email_verified: true` (the boolean), or `emailAlwaysVerified` is set.
   */
  allowDangerousEmailAccountLinking?: boolean
  /** Gatehouse: this provider verifies every address it returns, even without an `email_verified` claim. */
  emailAlwaysVerified?: boolean
  /**
   * Gatehouse: audiences besides `clientId` that an ID token may name. Any other extra audience is refused (OIDC Core
   * 3.1.3.7 item 3), even with `azp` set to this client.
   */
  trustedAudiences?: string[]
  /** Gatehouse: OpenID Connect logout (RP-initiated and back-channel); see {@link OidcLogoutConfig}. */
  logout?: OidcLogoutConfig
  /**
   * Gatehouse: keep the provider's tokens after sign-in and refresh them through `getAccessToken()`.
   * `window` is how many seconds before expiry a token counts as due (default 60).
   */
  refresh?: boolean | { window?: number }
  redirectProxyUrl?: string
  /** OIDC only: read the profile from the ID token (default) or, when false, from userinfo. */
  idToken?: boolean
  /** Extra parameters of the authorization request (merged into `authorization.params`). */
  authorizationParams?: Record<string, string>
  /** Accept unsigned (`alg: none`) ID tokens. Dangerous; only for a provider registered that way. */
  allowInsecureUnsignedIdTokens?: boolean
  /** Allow plain-http endpoints (development only). */
  allowInsecureRequests?: boolean
  /**
   * Gatehouse: apply Microsoft Entra ID's issuer rules (the `microsoft-entra-id` factory sets it): the multi-tenant
   * endpoints' templated issuer, each ID token held to the tenant its `tid` names.
   */
  entra?: boolean
  /**
   * Gatehouse, Microsoft Entra ID: the tenants that may sign in, as tenant ids (compared case-insensitively) or a
   * function of the tenant id and the validated ID-token claims. Required in production for `common` and
   * `organizations`; `() => true` accepts every tenant on purpose.
   */
  allowedTenants?: string[] | ((tid: string, claims: Record<string, unknown>) => Awaitable<boolean>)
  /**
   * Gatehouse: push the authorization request to the server first (PAR, RFC 9126). Unset: push when the server's
   * metadata or the client registration requires it. `false`: never push (the server then refuses such sign-ins).
   */
  par?: boolean
  /**
   * Gatehouse: sender-constrain the provider's tokens with DPoP (RFC 9449), one key per sign-in kept with the tokens
   * and used for every refresh. A server answering Bearer tokens is refused. Default algorithm ES256.
   */
  dpop?: boolean | { alg?: "ES256" | "PS256" | "EdDSA" }
  /**
   * Gatehouse: sign the authorization request (JAR, RFC 9101) with this private key. `lifetime` in seconds (default
   * 60, at most 300; 60 under `fapi2`).
   */
  requestObject?: RequestObjectConfig
  /** Gatehouse: the FAPI 2.0 Security Profile preset (PAR, DPoP, `private_key_jwt`, PS256/ES256/EdDSA only). */
  securityProfile?: "fapi2"
  /** Replaces `fetch` for discovery, token and userinfo requests. */
  [customFetch]?: typeof fetch
  /** The user's overrides, merged over the provider's defaults. */
  options?: OAuthUserConfig<P>
}

/** The private key and algorithm of signed authorization requests (JAR). */
export interface RequestObjectConfig {
  /** A private `CryptoKey`, a private JWK (with `d`), or `{ key, kid }`. */
  key: CryptoKey | Record<string, unknown> | { key: CryptoKey; kid?: string }
  /** Default: the JWK's `alg`, else the key's usual one (EC P-256: ES256, RSA: RS256, Ed25519: EdDSA). */
  alg?: string
  kid?: string
  /** Seconds from `iat` to `exp`; default 60. */
  lifetime?: number
}

/**
 * What a user passes to a catalogue provider factory. The security preset is `securityProfile: "fapi2"`; a string
 * `profile: "fapi2"` is accepted too at run time (the spelling of the generic `oidc` factory's options), where a
 * function `profile` stays the profile mapping.
 */
export type OAuthUserConfig<P = Profile> = Omit<Partial<OAuthConfig<P>>, "options" | "type">

export type OIDCConfig<P = Profile> = OAuthConfig<P> & { type: "oidc" }

/** OpenID Connect session lifecycle of one provider: RP-initiated logout 1.0 and back-channel logout 1.0. */
export interface OidcLogoutConfig {
  /** Sign-out also ends the session at the provider (redirect to its end-session endpoint). Default false. */
  rpInitiated?: boolean
  /** The end-session endpoint; default: `end_session_endpoint` from discovery. */
  endSessionEndpoint?: string
  /** Keep the sign-in's ID token to send as `id_token_hint`. Default true. */
  idTokenHint?: boolean
  /** Default `${origin}${basePath}/signout-callback/${id}`; must be registered at the provider. */
  postLogoutRedirectUri?: string
  /**
   * The query parameter that carries {@link postLogoutRedirectUri}: `post_logout_redirect_uri` (RP-Initiated Logout
   * 1.0, the default). Amazon Cognito's `/logout` wants `logout_uri` (its provider sets that).
   */
  postLogoutRedirectParam?: string
  /** Extra end-session parameters (`ui_locales`, `logout_hint`, …). */
  params?: Record<string, string>
  /**
   * Receive back-channel logout tokens at `POST {basePath}/backchannel-logout/{id}`. Default false. With
   * `legacyUserWide`, a token also ends every session of the linked user that predates the session columns.
   */
  backchannel?: boolean | { legacyUserWide?: boolean }
}

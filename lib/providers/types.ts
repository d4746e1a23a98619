/**
 * Provider types: the shapes of credentials, email, WebAuthn and OAuth/OIDC providers, with the option names of the
 * reference so that an Auth.js provider config ports unchanged.
 */
import type { Account, Awaitable, Profile, Theme, User } from "../core/types"

export type ProviderType = "oauth" | "oidc" | "email" | "credentials" | "webauthn"

/** Brand style of a provider button on the built-in sign-in page. */
export interface ProviderStyle {
  logo?: string
  /** @deprecated use brandColor */
  bg?: string
  brandColor?: string
  text?: string
}

interface CommonProviderOptions {
  id: string
  name: string
  type: ProviderType
}

// ---------------------------------------------------------------------------------------------------------------
// Credentials

/** One input of the credentials form; every property is spread onto the `<input>` element. */
export interface CredentialInput {
  label?: string
  type?: string
  placeholder?: string
  [attribute: string]: unknown
}

export interface CredentialsConfig<
  C extends Record<string, CredentialInput> = Record<string, CredentialInput>,
> extends CommonProviderOptions {
  type: "credentials"
  credentials: C
  /**
   * Checks the submitted credentials. Return the user, or `null` to fail with `CredentialsSignin`; throw a subclass of
   * `CredentialsSignin` to choose the `code` in the URL.
   */
  authorize: (credentials: Partial<Record<keyof C, unknown>>, request: Request) => Awaitable<User | null>
  options?: Partial<CredentialsConfig<C>>
}

// ---------------------------------------------------------------------------------------------------------------
// Email

export interface SendVerificationRequestParams {
  identifier: string
  url: string
  expires: Date
  provider: EmailConfig
  token: string
  theme: Theme
  request: Request
}

export interface EmailConfig extends CommonProviderOptions {
  type: "email"
  /** SMTP connection: a URL or nodemailer transport options. */
  server?: unknown
  from?: string
  /** Lifetime of a sign-in link in seconds. */
  maxAge?: number
  sendVerificationRequest: (params: SendVerificationRequestParams) => Awaitable<void>
  /** A token generator; by default 32 random bytes as hex. */
  generateVerificationToken?: () => Awaitable<string>
  /** Normalises the address typed by the user; throw to reject it. */
  normalizeIdentifier?: (identifier: string) => string
  /** Secret for hashing tokens; defaults to the config's. */
  secret?: string | string[]
  apiKey?: string
  theme?: Theme
  options?: Partial<EmailConfig>
}

// ---------------------------------------------------------------------------------------------------------------
// WebAuthn (filled in by the WebAuthn issue)

export interface WebAuthnConfig extends CommonProviderOptions {
  type: "webauthn"
  [key: string]: unknown
}

// ---------------------------------------------------------------------------------------------------------------
// OAuth 2 / OpenID Connect

/** An endpoint given as a URL, or as `{url, params}` (params are added to the URL's query). */
export type EndpointConfig =
  | string
  | {
      url?: string
      params?: Record<string, unknown>
    }

/** Token endpoint response fields that Gatehouse reads (others are kept too). */
export interface TokenSet {
  access_token?: string
  token_type?: string
  id_token?: string
  refresh_token?: string
  expires_in?: number
  expires_at?: number
  scope?: string
  [key: string]: unknown
}

/** Userinfo endpoint with an optional custom request (e.g. GitHub's email fallback). */
export type UserinfoEndpointConfig =
  | EndpointConfig
  | {
      url?: string
      params?: Record<string, unknown>
      request?: (context: { tokens: TokenSet; provider: OAuthConfig<Profile> }) => Awaitable<Profile>
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
  issuer?: string
  wellKnown?: string
  authorization?: EndpointConfig
  token?: TokenEndpointConfig
  userinfo?: UserinfoEndpointConfig
  clientId?: string
  clientSecret?: string
  client?: OAuthClientMetadata
  /** Checks on the callback. PKCE (S256) is always added; `state` is added with a redirect proxy. */
  checks?: OAuthCheck[]
  /** Maps the provider's profile to a user; `id` becomes the account's `providerAccountId`. */
  profile?: (profile: P, tokens: TokenSet) => Awaitable<User>
  /** Picks the token fields stored in the account. */
  account?: (tokens: TokenSet) => Partial<Account> | undefined
  style?: ProviderStyle
  /** Allows linking this OAuth account to an existing user with the same email (risky: see README). */
  allowDangerousEmailAccountLinking?: boolean
  redirectProxyUrl?: string
  /** OIDC only: read the profile from the ID token (default) or, when false, from userinfo. */
  idToken?: boolean
  /** Extra parameters of the authorization request (merged into `authorization.params`). */
  authorizationParams?: Record<string, string>
  /** Accept unsigned (`alg: none`) ID tokens. Dangerous; only for a provider registered that way. */
  allowInsecureUnsignedIdTokens?: boolean
  /** Allow plain-http endpoints (development only). */
  allowInsecureRequests?: boolean
  /** Replaces `fetch` for discovery, token and userinfo requests. */
  [customFetch]?: typeof fetch
  /** The user's overrides, merged over the provider's defaults. */
  options?: OAuthUserConfig<P>
}

/** What a user passes to a catalogue provider factory. */
export type OAuthUserConfig<P = Profile> = Omit<Partial<OAuthConfig<P>>, "options" | "type">

/** Marker key: a provider's replacement for `fetch`. */
export const customFetch: unique symbol = Symbol.for("gatehouse.customFetch")

export type OIDCConfig<P = Profile> = OAuthConfig<P> & { type: "oidc" }

/** Any provider config. */
export type ProviderConfig = OAuthConfig<any> | EmailConfig | CredentialsConfig | WebAuthnConfig // eslint-disable-line @typescript-eslint/no-explicit-any

/** A provider as listed in `config.providers`: a config object, or a factory called with no options. */
export type Provider = ProviderConfig | ((options?: any) => ProviderConfig) // eslint-disable-line @typescript-eslint/no-explicit-any

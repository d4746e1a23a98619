/** The `accessTokens` and `native` options (tokens.md T3.1, T2.1): access tokens for other services, native-app sign-in. */
import type { Awaitable, JWT, Session } from "../../../models"

/** The algorithms Gatehouse signs access tokens with: asymmetric only. */
export type AccessTokenAlg = "ES256" | "EdDSA" | "RS256"

/** A private JWK of a configured signing key. */
export type PrivateJwk = Record<string, unknown> & { kty: string; kid: string; alg: AccessTokenAlg; d: string }

/** What the `claims` callback receives. */
export interface AccessTokenClaimsParams {
  session: Session | JWT | null
  userId: string
  audience: string
  scope?: string
}

export interface AccessTokensOptions {
  /** The audiences a token may be for; the first is the default `aud`. */
  audience: string | string[]
  /** Default `<origin><basePath>` (the origin of `AUTH_URL`, else the request's outside production). */
  issuer?: string
  /** Seconds a token lives, 60 – 86400. Default 900. */
  ttl?: number
  /** The algorithm of generated keys. Default ES256. */
  alg?: AccessTokenAlg
  /** Private JWKs, newest first: the first signs, all are published; nothing is then stored or rotated. */
  keys?: PrivateJwk[]
  /** Generated keys: a new key every `every` seconds, the old one published `overlap` seconds more. */
  rotation?: { every?: number; overlap?: number }
  /** The scopes a client may ask for. */
  scopes?: string[]
  /** The `client_id` claim. Default "gatehouse". */
  clientId?: string
  /** Extra claims (reserved names are dropped); `null` or a throw refuses the token (403 AccessDenied). */
  claims?: (params: AccessTokenClaimsParams) => Awaitable<Record<string, unknown> | null>
}

/** `native`: the app redirect URIs of native-app and CLI sign-in (RFC 8252). */
export interface NativeOptions {
  /** The app redirect URIs allowed: private-use scheme, claimed https, loopback IP (any port), or localhost. */
  redirectUris: string[]
  /** The app's name on the confirm page. Default "the app". */
  name?: string
  /** Show the confirm page before a code is issued. Default true. */
  confirm?: boolean
  /** Seconds a one-time code lives (1 – 600). Default 60. */
  codeTtl?: number
}

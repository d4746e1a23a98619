/**
 * The domain models every room shares: users, accounts, profiles, sessions, session JWTs, token sets. A leaf module:
 * it imports nothing, so adapters, providers, jwt, oauth and core can all depend on it without depending on each other.
 */

/** A value or a promise of it. */
export type Awaitable<T> = T | PromiseLike<T>

/** The kinds of providers. */
export type ProviderType = "oauth" | "oidc" | "email" | "credentials" | "webauthn" | "password"

/** A user as providers return it and callbacks see it. */
export interface User {
  id?: string
  name?: string | null
  email?: string | null
  image?: string | null
  [key: string]: unknown
}

/** A provider account (OAuth token response fields included, `token_type` lowercased). */
export interface Account {
  provider: string
  providerAccountId: string
  type: ProviderType
  userId?: string
  access_token?: string
  refresh_token?: string
  id_token?: string
  scope?: string
  token_type?: string
  expires_in?: number
  expires_at?: number
  [key: string]: unknown
}

/** OpenID Connect standard claims; any other claim may be present. */
export interface Profile {
  id?: string | null
  sub?: string | null
  name?: string | null
  given_name?: string | null
  family_name?: string | null
  middle_name?: string | null
  nickname?: string | null
  preferred_username?: string | null
  profile?: string | null
  picture?: unknown
  website?: string | null
  email?: string | null
  email_verified?: boolean | null
  gender?: string | null
  birthdate?: string | null
  zoneinfo?: string | null
  locale?: string | null
  phone_number?: string | null
  updated_at?: Date | string | number | null
  address?: {
    formatted?: string | null
    street_address?: string | null
    locality?: string | null
    region?: string | null
    postal_code?: string | null
    country?: string | null
  } | null
  [claim: string]: unknown
}

/** The session given to the browser and to handlers. */
export interface Session {
  user?: User
  expires: string
  /**
   * Only on an impersonation session: the id of the admin acting as this user (accounts.md §3.5). Set after the
   * `session` callback, so the app always sees it.
   */
  impersonatedBy?: string
  [key: string]: unknown
}

/** The payload of a session JWT. */
export interface JWT {
  sub?: string
  name?: string | null
  email?: string | null
  picture?: string | null
  iat?: number
  exp?: number
  jti?: string
  [claim: string]: unknown
}

/** Colours and logo of the built-in pages. */
export interface Theme {
  colorScheme?: "auto" | "dark" | "light"
  logo?: string
  brandColor?: string
  buttonText?: string
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

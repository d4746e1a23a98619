/**
 * Public types of the core: the config (`AuthConfig`) and the models callbacks and events see.
 */
import type { SerializeOptions } from "cookie"
import type { Adapter, AdapterSession, AdapterUser } from "../adapters/types"
import type { LoggerInstance } from "../logger"
import type { JWTDecodeParams, JWTEncodeParams } from "../jwt/types"
import type { Provider, ProviderType, CredentialInput } from "../providers/types"

export type Awaitable<T> = T | PromiseLike<T>

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

export type SessionStrategy = "jwt" | "database"

export interface SessionOptions {
  strategy: SessionStrategy
  /** Seconds until an idle session expires. Default 30 days. */
  maxAge: number
  /** Seconds between session refreshes (database writes, JWT re-issue on server reads). Default 1 day. */
  updateAge: number
  /** Token generator for database sessions. */
  generateSessionToken: () => string
}

export interface JWTOptions {
  /** Default 30 days. */
  maxAge: number
  encode: (params: JWTEncodeParams) => Awaitable<string>
  decode: (params: JWTDecodeParams) => Awaitable<JWT | null>
  secret?: string | string[]
}

export interface PagesOptions {
  signIn: string
  signOut: string
  error: string
  verifyRequest: string
  newUser: string
}

export interface Theme {
  colorScheme?: "auto" | "dark" | "light"
  logo?: string
  brandColor?: string
  buttonText?: string
}

export interface CookieOption {
  name: string
  options: SerializeOptions
}

export interface CookiesOptions {
  sessionToken: CookieOption
  callbackUrl: CookieOption
  csrfToken: CookieOption
  pkceCodeVerifier: CookieOption
  state: CookieOption
  nonce: CookieOption
  webauthnChallenge: CookieOption
}

/** A partial cookie override: any name or single option. */
export type CookiesOverride = {
  [K in keyof CookiesOptions]?: { name?: string; options?: Partial<SerializeOptions> }
}

export interface CallbacksOptions {
  signIn: (params: {
    user: User | AdapterUser
    account: Account | null
    profile?: Profile
    credentials?: Record<string, CredentialInput | unknown>
    email?: { verificationRequest?: boolean }
  }) => Awaitable<boolean | string>
  redirect: (params: { url: string; baseUrl: string }) => Awaitable<string>
  session: (params: {
    session: Session & Partial<AdapterSession> & { user: User }
    token: JWT
    user: AdapterUser
    newSession?: unknown
    trigger?: "update"
  }) => Awaitable<Session | Record<string, unknown>>
  jwt: (params: {
    token: JWT
    /** Present at sign-in (`trigger` "signIn"/"signUp") only. */
    user?: User | AdapterUser
    /** Present at sign-in only. */
    account?: Account | null
    profile?: Profile
    trigger?: "signIn" | "signUp" | "update"
    isNewUser?: boolean
    session?: unknown
  }) => Awaitable<JWT | null>
  /**
   * Used by `requireAuth()`: decides whether a request may pass. `false` denies (401/redirect); a returned `Response`
   * is sent as it is; `true` or `undefined` lets an authenticated request through.
   */
  authorized: (params: {
    auth: Session | null
    request: AuthorizedRequest
  }) => Awaitable<boolean | Response | undefined | void>
}

/** The request as the `authorized` callback sees it. */
export interface AuthorizedRequest {
  /** Absolute URL of the request. */
  url: string
  nextUrl: URL
  method: string
  headers: Headers
}

export interface EventCallbacks {
  signIn: (message: { user: User; account: Account | null; profile?: Profile; isNewUser?: boolean }) => Awaitable<void>
  signOut: (message: { session?: AdapterSession | null | void; token?: JWT | null }) => Awaitable<void>
  createUser: (message: { user: User }) => Awaitable<void>
  updateUser: (message: { user: User }) => Awaitable<void>
  linkAccount: (message: { user: User | AdapterUser; account: Account; profile: User | AdapterUser }) => Awaitable<void>
  session: (message: { session: Session; token?: JWT }) => Awaitable<void>
}

/** Marker: return the internal result instead of a `Response` (for framework authors). */
export const raw: unique symbol = Symbol.for("gatehouse.raw")
/**
 * Marker: skip the built-in CSRF check.
 *
 * **Warning**: only for framework authors that do their own CSRF protection; otherwise it opens every POST action
 * to cross-site request forgery.
 */
export const skipCSRFCheck: unique symbol = Symbol.for("gatehouse.skipCSRFCheck")

/** The configuration of Gatehouse. */
export interface AuthConfig {
  providers: Provider[]
  adapter?: Adapter
  basePath?: string
  callbacks?: Partial<CallbacksOptions>
  cookies?: CookiesOverride
  debug?: boolean
  events?: Partial<EventCallbacks>
  experimental?: { enableWebAuthn?: boolean }
  jwt?: Partial<JWTOptions>
  logger?: Partial<LoggerInstance>
  pages?: Partial<PagesOptions>
  raw?: typeof raw
  redirectProxyUrl?: string
  secret?: string | string[]
  session?: Partial<SessionOptions>
  skipCSRFCheck?: typeof skipCSRFCheck
  theme?: Theme
  trustHost?: boolean
  useSecureCookies?: boolean
}

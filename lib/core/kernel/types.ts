/**
 * Public types of the core: the config (`AuthConfig`), its callbacks and events. The models they carry live in
 * `lib/models.ts` and are re-exported here for existing imports.
 */
import type { SerializeOptions } from "cookie"
import type { Adapter, AdapterSession, AdapterUser } from "../../storage/adapter"
import type { KeyValueStore, RateLimitStore } from "../../storage/kv"
import type { LoggerInstance } from "../../logger"
import type { JWTDecodeParams, JWTEncodeParams } from "../../jwt/types"
import type { Provider, CredentialInput } from "../../providers/types"
import type { Account, Awaitable, JWT, Profile, Session, Theme, User } from "../../models"
import type { raw, skipCSRFCheck } from "../../symbols"
import type { SessionCacheOptions } from "./config/session-cache"
import type { AuditOptions } from "./audit/types"
import type { AccountOptions, AdminOptions } from "./accounts/types"
import type { AccessTokensOptions } from "./config/access-tokens"
import type { NativeOptions } from "./config/native"

export type SessionStrategy = "jwt" | "database"

export interface SessionOptions {
  strategy: SessionStrategy
  /** Seconds until an idle session expires. Default 30 days. */
  maxAge: number
  /** Seconds between session refreshes (database writes, JWT re-issue on server reads). Default 1 day. */
  updateAge: number
  /** Token generator for database sessions. */
  generateSessionToken: () => string
  /** Seconds after sign-in during which sensitive calls (deleting a passkey) are allowed. Default 900. */
  freshAge: number
  /**
   * Refresh-token rotation: with `signOutOnError: true`, a session whose provider refused the refresh token reads as
   * no session (`null`) instead of a session with `error: "RefreshTokenError"`. Default false.
   */
  refresh?: { signOutOnError?: boolean }
  /**
   * Database sessions with session management: record the client IP on each new session, shown by `listSessions`.
   * `false` (default) stores none; `true` the address; `"truncate"` only its network (IPv4 /24, IPv6 /64). The IP is
   * Express's `req.ip` (so `trust proxy` decides) or, in the Fetch flavour, `rateLimit.ip(request)`.
   */
  storeIp?: boolean | "truncate"
  /**
   * Database sessions only: keep each session read from the adapter in this process for `ttl` seconds (at most 300),
   * at most `max` of them (default 1000). Off by default. A sign-out or revocation made through this process takes
   * effect at once; one made by another process, or directly in the database, after at most `ttl` seconds.
   */
  cache?: SessionCacheOptions
  /**
   * Bearer sessions (tokens.md T1): accept `Authorization: Bearer <session token>` wherever a session cookie counts,
   * and answer sign-ins sent with `X-Auth-Return-Token: 1` with the token in JSON instead of a cookie. Default false.
   */
  bearer?: boolean
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
  /** Gatehouse: the app's own second-factor page (it posts to `{base}/two-factor` like the built-in one). */
  twoFactor: string
  /** Gatehouse, Password provider: custom pages the built-in GET routes redirect to (with the same query). */
  signUp: string
  forgotPassword: string
  resetPassword: string
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
  /** Gatehouse only: the sealed, masked address shown on the verify-request page (10 minutes). */
  verifyAddress: CookieOption
  /** Gatehouse only: the sealed non-password fields of a rejected credentials form, refilled once (5 minutes). */
  credentialsRefill: CookieOption
  /** Gatehouse only: the sealed pending sign-in awaiting its second factor (10 minutes). */
  twoFactor: CookieOption
  /** Gatehouse only: a device trusted to skip the second factor (`twoFactor.trustDevice.maxAge`). */
  twoFactorTrust: CookieOption
}

/** A partial cookie override: any name or single option. */
export type CookiesOverride = {
  [K in keyof CookiesOptions]?: { name?: string; options?: Partial<SerializeOptions> }
}

/** The `session` callback's parameter with JWT sessions: the decoded token (after the `jwt` callback). */
export interface JwtSessionCallbackParams {
  session: { user: User; expires: string }
  token: JWT
  user?: never
}

/** The `session` callback's parameter with database sessions: the stored session and its user. */
export interface DatabaseSessionCallbackParams {
  /** The stored session without its token or user id (never exposed to page scripts through GET /session). */
  session: { user: AdapterUser; expires: Date }
  user: AdapterUser
  /** The `data` of a POST /session update. */
  newSession?: unknown
  trigger?: "update"
  token?: never
}

/** What the `session` callback really receives: `token` with JWT sessions, `user` with database sessions. */
export type SessionCallbackParams = JwtSessionCallbackParams | DatabaseSessionCallbackParams

/**
 * The `session` callback's declared parameter: Auth.js's single bag, so a callback written for Auth.js (`token.sub`)
 * compiles unchanged. Only half of it is present for a given strategy (see {@link SessionCallbackParams}); annotate
 * your parameter with `JwtSessionCallbackParams` or `DatabaseSessionCallbackParams` for the precise type.
 */
export interface SessionCallbackBag {
  session: { user: User | AdapterUser; expires: string | Date }
  /** JWT sessions only. */
  token: JWT
  /** Database sessions only. */
  user: AdapterUser
  newSession?: unknown
  trigger?: "update"
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
  /** Shapes the session the browser and handlers see; what the parameter holds depends on the strategy. */
  session: (
    params: SessionCallbackBag,
  ) => Awaitable<Session | DatabaseSessionCallbackParams["session"] | Record<string, unknown>>
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
   * Used by `app.use(auth)`, `auth(handler)` and `requireAuth()`: decides whether a request may pass. A truthy answer
   * lets it through; any falsy one (`false`, `null`, `undefined`, no return) denies (401, a redirect to sign-in, or
   * 403 when signed in); a returned `Response` is sent as it is. `request.nextUrl.pathname` is the path as the app
   * routes it (see `AuthorizedRequest`).
   */
  authorized: (params: {
    auth: Session | null
    request: AuthorizedRequest
  }) => Awaitable<boolean | Response | undefined | void>
}

/** The request as the `authorized` callback sees it. */
export interface AuthorizedRequest {
  /** Absolute URL of the request, with the path as the client spelled it. */
  url: string
  /**
   * The URL with the path the app routes: percent-encoded unreserved characters decoded, and with Express, folded
   * by the app's routing settings (lower-cased unless `case sensitive routing`; one trailing slash dropped unless
   * `strict routing`). Decide on this one: `/ADMIN/` and `/%61dmin` reach `app.get("/admin")`'s rule as `/admin`.
   */
  nextUrl: URL
  method: string
  headers: Headers
  /** The framework's own request object, when there is one (the Express `req`). */
  req?: unknown
}

/** What passed the second factor of a sign-in (absent when none applied). */
export type TwoFactorUsed = "totp" | "backup-code" | "email" | "trusted-device"

export interface EventCallbacks {
  signIn: (message: {
    user: User
    account: Account | null
    profile?: Profile
    isNewUser?: boolean
    /** Gatehouse: the second factor this sign-in passed (absent when none applied). */
    twoFactor?: TwoFactorUsed
  }) => Awaitable<void>
  /** Gatehouse: a user confirmed a TOTP enrolment; two-factor sign-in is on for them. */
  twoFactorEnabled: (message: { userId: string }) => Awaitable<void>
  /** Gatehouse: a user turned two-factor sign-in off. */
  twoFactorDisabled: (message: { userId: string }) => Awaitable<void>
  /** Gatehouse: a user replaced their backup codes. */
  backupCodesRegenerated: (message: { userId: string }) => Awaitable<void>
  /**
   * A session ended: sign-out, or `reason: "revoked"` (session management: revoked by id, "sign out other devices",
   * "sign out everywhere", an admin revocation, or a JWT refused because of such a revocation), or
   * `reason: "backchannel"` (the OpenID provider ended it through back-channel logout).
   */
  signOut: (message: {
    session?: AdapterSession | null | void
    token?: JWT | null
    reason?: "revoked" | "backchannel"
  }) => Awaitable<void>
  /** Gatehouse: a verified back-channel logout token was processed; `count` database sessions were deleted. */
  backchannelLogout: (message: { provider: string; sid?: string; sub?: string; count: number }) => Awaitable<void>
  /** Gatehouse: a rate limit refused a request; at most once per rule and key in each window. `key` is hashed. */
  rateLimited: (message: { rule: RateLimitRuleName; key: string; ip?: string }) => Awaitable<void>
  createUser: (message: { user: User }) => Awaitable<void>
  /** Gatehouse, Password provider: a reset link set a new password (fired before `passwordChanged`). */
  passwordReset: (message: { user: AdapterUser; userId: string }) => Awaitable<void>
  /** Gatehouse, Password provider: a reset, change or set wrote a new hash (never a re-hash or an import). */
  passwordChanged: (message: {
    user: AdapterUser
    userId: string
    reason: "reset" | "change" | "set"
  }) => Awaitable<void>
  /** Gatehouse, Password provider: a verification link confirmed the user's address. */
  emailVerified: (message: { user: AdapterUser; userId: string }) => Awaitable<void>
  /** Gatehouse: a user was deleted (self-service `deleteAccount` or `deleteUser`), after every session ended. */
  userDeleted: (message: { user: AdapterUser }) => Awaitable<void>
  updateUser: (message: { user: User }) => Awaitable<void>
  linkAccount: (message: { user: User | AdapterUser; account: Account; profile: User | AdapterUser }) => Awaitable<void>
  session: (message: { session: Session; token?: JWT }) => Awaitable<void>
  /**
   * Gatehouse: the first passwordless proof of an address whose user was never verified replaced that user (its
   * account links and sessions are gone; the new user has a new id). Drop anything your app attached to
   * `previousUser` that the address owner did not create, such as a password.
   */
  accountRecovered: (message: { user: AdapterUser; previousUser: AdapterUser }) => Awaitable<void>
  /** Gatehouse: a security-relevant event, e.g. `webauthn.counter_regression` (a cloned or replayed authenticator). */
  /** Gatehouse: `getAccessToken()` failed for good (`invalid_grant`, `id_token_mismatch`, `no_refresh_token`). */
  refreshTokenError: (message: { provider: string; userId?: string; reason: string }) => Awaitable<void>
  /** Gatehouse (tokens.md T3): an access token was issued (never the token itself). */
  accessTokenIssued: (message: { userId: string; audience: string; scope?: string; jti: string }) => Awaitable<void>
  /** Gatehouse (tokens.md T3.4): the generated access-token signing keys rotated. */
  signingKeyRotated: (message: { kid: string; previousKid?: string }) => Awaitable<void>
  /** Gatehouse (tokens.md T2): a native one-time code was redeemed for a new bearer session. */
  nativeSignIn: (message: { user: User | AdapterUser; provider: string; redirectUri: string }) => Awaitable<void>
  securityAlert: (
    message:
      | { type: "webauthn.counter_regression"; userId: string; credentialID: string }
      | { type: "twofactor.locked" | "twofactor.trust_replayed"; userId: string }
      | { type: "native.code_reuse"; userId: string },
  ) => Awaitable<void>
}

/** The names of the rate-limit rules (README "Rate limiting" has the table). */
export type RateLimitRuleName =
  | "credentials-ip"
  | "credentials-account"
  | "email-send-ip"
  | "email-send-address"
  | "webauthn-options"
  | "webauthn-verify"
  | "two-factor"
  | "backchannel"
  | "session-update"
  | "oauth-par-ip"
  | "token-exchange"
  | "access-token"
  | "two-factor-challenge"
  | "two-factor-account"
  | "email-code"
  | "signup-ip"
  | "password-email-address"
  | "password-forgot-ip"
  | "password-token-ip"
  | "password-change"
  | "account-email-change"
  | "account-delete"
  | "account-link"
  | "account-link-confirm"
  | "admin"

/** One rule's fixed window: at most `limit` hits per `window` seconds. */
export interface RateLimitRule {
  limit: number
  window: number
}

/** What `rateLimit.ip` receives: the Express request in the Express flavour, the Web `Request` otherwise. */
export type ClientIpSource = Request | { ip?: string; headers: object; socket?: { remoteAddress?: string } }

/** `rateLimit`: the limiter of the auth routes (README "Rate limiting"). */
export interface RateLimitOptions {
  /** Default: `NODE_ENV === "production"`. Off, only `email-send-address` still runs (silently, EM-13). */
  enabled?: boolean
  /**
   * Where the counters live: `"memory"` (default, this process only), `"adapter"` (the key-value store: `config.store`
   * or the adapter's, shared by every instance), or any object with `hit` and `reset`.
   */
  store?: "memory" | "adapter" | RateLimitStore
  /**
   * The client IP. Default in the Express flavour: `req.ip`, so the app's `trust proxy` decides whether
   * `X-Forwarded-For` counts. The web flavour has no default: without it the IP-keyed rules are skipped.
   */
  ip?(request: ClientIpSource): string | null | undefined
  /** IPv6 addresses count per network of this many bits. Default 64. */
  ipv6Subnet?: number
  /** Headers of a limited answer: `Retry-After` (default), also the IETF draft-10 `RateLimit`/`RateLimit-Policy`, or none. */
  headers?: "retry-after" | "draft-ietf-10" | false
  /** Per-rule overrides (`{ limit, window }`, either may be left out), or `false` to turn a rule off. */
  rules?: Partial<Record<RateLimitRuleName, Partial<RateLimitRule> | false>>
}

/** `twoFactor`: two-factor sign-in after every first factor (README "Two-factor sign-in"). */
export interface TwoFactorOptions {
  /** Label in authenticator apps. Default: the host of `AUTH_URL`, else of the request. */
  issuer?: string
  /** Second factors offered. Default `["totp"]`; `"email"` needs an email provider. */
  methods?: Array<"totp" | "email">
  /** Whether a user without TOTP must pass an email code (with `"email"` in `methods`). Default false. */
  required?: boolean | ((user: User | AdapterUser) => Awaitable<boolean>)
  /** `"skip"` (default): a passkey assertion with user verification counts as two factors. */
  passkeys?: "skip" | "enforce"
  /** "Trust this device": `false`, or the cookie's life in seconds (default 30 days). */
  trustDevice?: false | { maxAge?: number }
  /** End the user's other sessions when two-factor sign-in is turned on or off. Default true. */
  revokeOtherSessionsOnEnable?: boolean
  /** The email provider that sends second-factor codes. Default: the first one. */
  emailProvider?: string
}

/** The configuration of Gatehouse. */
export interface AuthConfig {
  /** The sign-in methods, in the order the sign-in page lists them: provider factories or provider objects. */
  providers: Provider[]
  /**
   * Where users, accounts, database sessions, verification tokens and authenticators are stored. Needed by email
   * sign-in, passkeys and database sessions; optional with OAuth and JWT sessions.
   */
  adapter?: Adapter
  /**
   * Longest time one adapter call may take, in ms (default 5000). A call that takes longer fails closed: a session
   * read answers "no session" (503 to API clients on the `/session` route), a sign-in ends on the error page.
   */
  adapterTimeout?: number
  /** The path the auth routes are mounted under (default `/auth`, or the path of `AUTH_URL`). */
  basePath?: string | undefined
  /**
   * The audit trail: `store` (`"adapter"`, the default when the adapter has the audit methods, or `false`), a `sink`
   * called once per event, and `retention` in days (default 90).
   */
  audit?: AuditOptions
  /** Hooks that decide or shape the flow: `signIn`, `redirect`, `jwt`, `session`. */
  callbacks?: Partial<CallbacksOptions>
  /** Per-cookie overrides of names and options (a check cookie's `maxAge` is honoured). */
  cookies?: CookiesOverride
  /** Log `debug` lines (method names and counts only, never tokens) to the logger. */
  debug?: boolean | undefined
  /** Side-effect handlers run after the fact (`signIn`, `signOut`, `createUser`, `linkAccount`, `session`, ...). */
  events?: Partial<EventCallbacks>
  /** Accepted for Auth.js compatibility and ignored: WebAuthn is generally available. */
  experimental?: { enableWebAuthn?: boolean }
  /**
   * Optional routes: `passkeyRoutes` serves `GET <base>/passkeys` and `POST <base>/passkeys/{rename,delete}`;
   * `sessionRoutes` serves `GET <base>/sessions` and `POST <base>/sessions/revoke`.
   */
  features?: { passkeyRoutes?: boolean; sessionRoutes?: boolean; accountRoutes?: boolean; adminRoutes?: boolean }
  /** Account self-service (accounts.md §2): deletion confirmation, the account mails, link lifetimes. */
  account?: AccountOptions
  /** Administration (accounts.md §3): who is an admin, the impersonation lifetime. */
  admin?: AdminOptions
  /** How JWT session tokens are made: `maxAge`, and custom `encode`/`decode`. */
  jwt?: Partial<JWTOptions>
  /** Where errors, warnings and debug lines go (default: the console). */
  logger?: Partial<LoggerInstance>
  /** Rate limits of the sign-in, email, passkey, session-update and back-channel routes (README "Rate limiting"). */
  rateLimit?: RateLimitOptions
  /**
   * Longest time one outgoing OAuth/OIDC request (discovery, token, userinfo, JWKS, and the `fetch` a provider's
   * custom userinfo request gets) may take, in ms (default 10000).
   */
  httpTimeout?: number
  /** Paths of your own pages instead of the built-in ones: `signIn`, `signOut`, `error`, `verifyRequest`, `newUser`. */
  pages?: Partial<PagesOptions>
  /** Internal marker for framework layers: answer the internal result and rethrow `AuthError`s. */
  raw?: typeof raw
  /** The stable callback URL of a redirect proxy for preview deployments (default `AUTH_REDIRECT_PROXY_URL`). */
  redirectProxyUrl?: string | undefined
  /**
   * Where the redirect proxy may forward a callback: exact origins or `https://*.preview.example.com` patterns (one
   * label). Default `AUTH_REDIRECT_PROXY_ALLOWED_ORIGINS` (comma-separated); empty means the proxy forwards nowhere.
   */
  redirectProxyAllowedOrigins?: string[]
  /** `process.env.AUTH_SECRET` may be passed as is: `undefined` falls back to the `AUTH_SECRET` variables. */
  secret?: string | string[] | undefined
  /** The session strategy (`jwt` or `database`), `maxAge`, `updateAge` and the session token generator. */
  session?: Partial<SessionOptions>
  /** Disables the double-submit CSRF check; only for a framework that checks the origin of form posts itself. */
  skipCSRFCheck?: typeof skipCSRFCheck
  /**
   * The key-value store for revocation watermarks, replay guards and rate limits. Default: the adapter's `store`
   * (PostgreSQL, SQLite, Redis keep it in the same database), else one in this process's memory.
   */
  store?: KeyValueStore
  /** Colors, logo and button text of the built-in pages. */
  theme?: Theme
  /** Access tokens for other services (RFC 9068) from `GET <base>/token`, keys at `GET <base>/jwks` (tokens.md T3). */
  accessTokens?: AccessTokensOptions
  /** Native-app and CLI sign-in through the system browser (RFC 8252, tokens.md T2). */
  native?: NativeOptions
  /** Two-factor sign-in (TOTP, backup codes, trusted devices, email codes) after every first factor. */
  twoFactor?: TwoFactorOptions
  /**
   * Provider tokens kept for refresh. `encryptAtRest: true` stores the access and refresh tokens of
   * account rows as `gh1.<JWE>` (key derived from the first secret; every secret decrypts). Default false, so Auth.js
   * can still read the rows; recommended true.
   */
  tokens?: { encryptAtRest?: boolean }
  /**
   * Whether the request's `Host` (and `X-Forwarded-Host`) may decide the origin. Default: true when `AUTH_URL` or
   * `AUTH_TRUST_HOST` is set or outside production; production without either is refused at construction.
   */
  trustHost?: boolean | undefined
  /** `Secure` cookies with the `__Secure-`/`__Host-` prefixes (default: when the origin is https). */
  useSecureCookies?: boolean | undefined
}

export type { Account, Awaitable, JWT, Profile, ProviderType, Session, Theme, TokenSet, User } from "../../models"

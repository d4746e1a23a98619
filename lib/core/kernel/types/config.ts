/** `AuthConfig`, the configuration of Gatehouse, and the `twoFactor` option. */
import type { Adapter, AdapterUser } from "../../../storage/adapter"
import type { KeyValueStore } from "../../../storage/kv"
import type { LoggerInstance } from "../../../logger"
import type { Provider } from "../../../providers/types"
import type { Awaitable, Theme, User } from "../../../models"
import type { raw, skipCSRFCheck } from "../../../symbols"
import type { AuditOptions } from "../audit/types"
import type { AccountOptions, AdminOptions } from "../accounts/types"
import type { CallbacksOptions } from "./callbacks"
import type { CookiesOverride, PagesOptions } from "./cookies"
import type { EventCallbacks } from "./events"
import type { RateLimitOptions } from "../rate-limit/types"
import type { JWTOptions, SessionOptions } from "./session"
import type { AccessTokensOptions, NativeOptions } from "./tokens"

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

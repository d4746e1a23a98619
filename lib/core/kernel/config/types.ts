/** The resolved config: what the core reads on every request, complete, validated and frozen. */
import type { ResolvedAccessTokens } from "./access-tokens"
import type { ResolvedNative } from "./native"
import type {
  AccountTokenAdapter,
  AuthenticatorAdapter,
  IdpSessionAdapter,
  PasswordAdapter,
  SessionAdapter,
  SessionManagementAdapter,
  TransactionAdapter,
  UserAdapter,
  VerificationTokenAdapter,
} from "../../../storage/adapter"
import type { LoggerInstance } from "../../../logger"
import type { KeyValueStore } from "../../../storage/kv"
import type { RateLimiter } from "../rate-limit/limiter"
import type { ResolvedAudit } from "../audit/types"
import type { ResolvedAccounts } from "../accounts/types"
import type {
  CallbacksOptions,
  CookiesOptions,
  EventCallbacks,
  JWTOptions,
  PagesOptions,
  SessionOptions,
  Theme,
} from "../types"
import type { InternalProvider } from "./providers"
import type { ResolvedTwoFactor } from "./two-factor"

/** The user methods an OAuth sign-in with an adapter calls (and, optionally, `deleteUser`/`transaction`). */
export type OAuthUserStore = Pick<
  UserAdapter,
  "getUserByAccount" | "getUser" | "getUserByEmail" | "createUser" | "linkAccount"
> &
  Partial<Pick<UserAdapter, "deleteUser" | "getAccount" | "unlinkAccount"> & TransactionAdapter & AccountTokenAdapter>

/** What the email flow calls: the token pair, the lookup by address, and the user writes of its callback. */
export type EmailStore = VerificationTokenAdapter &
  Pick<UserAdapter, "getUserByEmail" | "createUser" | "updateUser"> &
  Partial<Pick<UserAdapter, "deleteUser"> & TransactionAdapter>

/** What credentials sign-in with database sessions calls to find or create the user. */
export type CredentialsUserStore = Pick<UserAdapter, "getUser" | "getUserByEmail" | "createUser">

/**
 * What WebAuthn calls: the reference's required set, plus methods used when present (an email lookup for
 * registration, challenge rows when no provider brings a `challengeStore`, passkey management, transactions).
 */
export type WebAuthnStore = Pick<
  AuthenticatorAdapter,
  "getAuthenticator" | "createAuthenticator" | "listAuthenticatorsByUserId" | "updateAuthenticatorCounter"
> &
  Pick<UserAdapter, "createUser" | "getUser" | "getUserByEmail" | "linkAccount" | "getAccount"> &
  Partial<
    Pick<AuthenticatorAdapter, "deleteAuthenticator" | "updateAuthenticator"> &
      Pick<UserAdapter, "deleteUser" | "unlinkAccount"> &
      VerificationTokenAdapter &
      TransactionAdapter
  >

/**
 * The adapter, cut into one view per feature in use. A view exists exactly when its feature is configured, and holds
 * exactly the methods the feature calls (checked at construction): no view means the feature is off.
 */
export interface AdapterStores {
  /** Database sessions (`session.strategy: "database"`). */
  readonly sessions?: SessionAdapter
  /** An email provider is configured. */
  readonly email?: EmailStore
  /** An OAuth/OIDC provider is configured together with an adapter. */
  readonly oauth?: OAuthUserStore
  /** A credentials provider with database sessions. */
  readonly credentials?: CredentialsUserStore
  /** A WebAuthn provider. */
  readonly webauthn?: WebAuthnStore
  /** The Password provider. */
  readonly password?: PasswordStore
  /**
   * Session management and account deletion, present with any adapter: only the methods it has (all optional, so
   * an Auth.js adapter without them works; each caller checks what it needs).
   */
  readonly management?: ManagementStore
  /** OIDC logout (RP-initiated and back-channel), with a provider that configures it: only the methods it has. */
  readonly logout?: LogoutStore
}

/**
 * What OIDC logout calls: `deleteSessionsByIdp` (required with database sessions and a back-channel provider), the
 * ID token of the account (RP-initiated `id_token_hint`), and the user-wide fallback of `legacyUserWide`.
 */
export type LogoutStore = Partial<
  IdpSessionAdapter &
    Pick<SessionManagementAdapter, "deleteSessions"> &
    Pick<UserAdapter, "getUserByAccount" | "getAccount">
>

/** What the Password provider calls: users, password rows and verification tokens (`transaction` when present). */
export type PasswordStore = PasswordAdapter &
  VerificationTokenAdapter &
  Pick<UserAdapter, "createUser" | "getUser" | "getUserByEmail" | "updateUser"> &
  Partial<TransactionAdapter>

/** The optional methods of session management and account deletion. */
export type ManagementStore = Partial<
  SessionManagementAdapter & Pick<SessionAdapter, "deleteSession"> & Pick<UserAdapter, "deleteUser">
>

/** The config as the core uses it: complete, validated and frozen. */
export interface ResolvedConfig {
  /** Base path without a trailing slash; `""` when mounted at the root. */
  readonly basePath: string
  /** Newest first: the first encrypts and signs, all decrypt and verify. */
  readonly secret: readonly string[]
  readonly providers: readonly InternalProvider[]
  readonly providerById: ReadonlyMap<string, InternalProvider>
  /** The adapter's feature views (empty without an adapter). */
  readonly stores: AdapterStores
  /** Time limit of one adapter call, in ms. */
  readonly adapterTimeout: number
  /** Time limit of one outgoing OAuth/OIDC/JWKS request, in ms. */
  readonly httpTimeout: number
  readonly session: Readonly<SessionOptions>
  readonly jwt: Readonly<JWTOptions>
  readonly callbacks: Readonly<CallbacksOptions>
  /** Whether the user defined a `jwt` callback (a re-issue is then needed when it changes the token). */
  readonly hasJwtCallback: boolean
  /** The user's own `authorized` callback (requireAuth runs only one the user defined). */
  readonly userAuthorized?: CallbacksOptions["authorized"]
  readonly events: Readonly<EventCallbacks>
  readonly pages: Readonly<Partial<PagesOptions>>
  readonly theme: Readonly<Theme>
  readonly logger: LoggerInstance
  readonly debug: boolean
  readonly useSecureCookies?: boolean
  /** Cookie names and options for secure (https) and insecure requests. */
  readonly cookies: { readonly secure: CookiesOptions; readonly insecure: CookiesOptions }
  readonly skipCSRFCheck: boolean
  readonly raw: boolean
  readonly redirectProxyUrl?: string
  /** `AUTH_URL`: when set, its origin is the origin of every generated URL. */
  readonly authUrl?: URL
  /** The key-value store: `config.store`, else the adapter's, else one in memory. */
  readonly store: KeyValueStore
  /** Where `store` came from: `config.store`, the adapter's `store`, or the per-process memory fallback. */
  readonly storeSource: "config" | "adapter" | "memory"
  /** Provider tokens at rest. */
  readonly tokens: Readonly<{ encryptAtRest: boolean }>
  readonly features: Readonly<{
    passkeyRoutes: boolean
    sessionRoutes: boolean
    accountRoutes: boolean
    adminRoutes: boolean
  }>
  /** The rate limiter (`config.rateLimit`): its rules, store and answers. */
  readonly rateLimit: RateLimiter
  /** Access tokens for other services (tokens.md T3), when configured. */
  readonly accessTokens?: ResolvedAccessTokens
  /** Native-app and CLI sign-in (tokens.md T2), when configured. */
  readonly native?: ResolvedNative
  /** Two-factor sign-in, when `twoFactor` is configured. */
  readonly twoFactor?: ResolvedTwoFactor
  /** The audit trail (`config.audit`): its store, sink and retention. */
  readonly audit: ResolvedAudit
  /** Account self-service and administration (`config.account`, `config.admin`, their route flags). */
  readonly accounts: ResolvedAccounts
}

/**
 * The adapter contract: how Gatehouse stores users, accounts, sessions, verification tokens and WebAuthn
 * authenticators. Methods are grouped by the feature that needs them; every method is optional in `Adapter`, and the
 * config check names the missing ones for each feature in use.
 */
import type { Awaitable } from "../models"
import type { KeyValueStore } from "./kv"

export type {
  AdapterUser,
  AdapterAccountType,
  AdapterAccount,
  AdapterSession,
  VerificationToken,
  AdapterAuthenticator,
  CounterUpdateOptions,
} from "./adapter-models"
export type {
  AdapterPasswordAccount,
  SetPasswordHashOptions,
  PasswordAdapter,
  AuthenticatorAdapter,
  UserCursor,
  UserDirectoryAdapter,
  AuditDetailValue,
  AdapterAuditEvent,
  AuditEventFilter,
  AuditAdapter,
  AdapterTwoFactor,
  TwoFactorPatch,
  TwoFactorAdapter,
} from "./adapter-features"
import type { AdapterUser, AdapterAccount, AdapterSession, VerificationToken } from "./adapter-models"
import type {
  PasswordAdapter,
  AuthenticatorAdapter,
  UserDirectoryAdapter,
  AuditAdapter,
  TwoFactorAdapter,
} from "./adapter-features"

/** Users and accounts: needed by OAuth sign-in with an adapter and by database sessions. */
export interface UserAdapter {
  createUser(user: AdapterUser): Awaitable<AdapterUser>
  getUser(id: string): Awaitable<AdapterUser | null>
  getUserByEmail(email: string): Awaitable<AdapterUser | null>
  getUserByAccount(account: Pick<AdapterAccount, "provider" | "providerAccountId">): Awaitable<AdapterUser | null>
  updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Awaitable<AdapterUser>
  /** Deletes the user and, with it, its accounts and sessions. */
  deleteUser(userId: string): Awaitable<AdapterUser | null | undefined | void>
  linkAccount(account: AdapterAccount): Awaitable<AdapterAccount | null | undefined | void>
  unlinkAccount(
    account: Pick<AdapterAccount, "provider" | "providerAccountId">,
  ): Awaitable<AdapterAccount | null | undefined | void>
  getAccount(providerAccountId: string, provider: string): Awaitable<AdapterAccount | null>
}

/** Database sessions. */
export interface SessionAdapter {
  createSession(session: AdapterSession): Awaitable<AdapterSession>
  getSessionAndUser(sessionToken: string): Awaitable<{ session: AdapterSession; user: AdapterUser } | null>
  updateSession(
    session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">,
  ): Awaitable<AdapterSession | null | undefined | void>
  deleteSession(sessionToken: string): Awaitable<AdapterSession | null | undefined | void>
}

/** Session management: list and bulk-delete a user's sessions ("sign out other devices", admin revocation). */
export interface SessionManagementAdapter {
  /** Every session row of the user, expired or not, in any order. */
  listSessionsByUserId(userId: string): Awaitable<AdapterSession[]>
  /** Deletes the user's sessions (except the row stored under `exceptToken`) and resolves to how many went. */
  deleteSessions(filter: { userId: string; exceptToken?: string }): Awaitable<number>
}

/**
 * Back-channel logout for database sessions: delete the sessions an OP ended, by its session id and/or subject (both
 * scoped by provider id). Rows created before the OIDC columns existed never match.
 */
export interface IdpSessionAdapter {
  /** Deletes the sessions of `provider` matching `idpSid` and/or `idpSub` (all given must match); resolves to them. */
  deleteSessionsByIdp(filter: { provider: string; idpSid?: string; idpSub?: string }): Awaitable<AdapterSession[]>
}

/** Which account a token update names. */
export type AccountKey = Pick<AdapterAccount, "provider" | "providerAccountId">

/** The token columns `updateAccountTokens` writes (`null` clears a column). */
export type AccountTokenPatch = Partial<
  Record<"access_token" | "refresh_token" | "token_type" | "scope" | "id_token" | "dpop_key", string | null> & {
    expires_at: number | null
  }
>

/**
 * Refresh-token rotation: write an account's token columns as one compare-and-swap, so of two
 * writers that read the same refresh token only one wins.
 */
export interface AccountTokenAdapter {
  /**
   * Applies `patch` to the account. With `expectedRefreshToken` (a string or `null`), only while the stored
   * `refresh_token` still equals it (`IS NOT DISTINCT FROM`); resolves to the updated account, or `null` when the
   * account is missing or the comparison failed (nothing written).
   */
  updateAccountTokens(
    key: AccountKey,
    patch: AccountTokenPatch,
    options?: { expectedRefreshToken?: string | null },
  ): Awaitable<AdapterAccount | null>
}

/** Email sign-in tokens. `useVerificationToken` must delete atomically what it returns. */
export interface VerificationTokenAdapter {
  createVerificationToken(token: VerificationToken): Awaitable<VerificationToken | null | undefined | void>
  useVerificationToken(params: { identifier: string; token: string }): Awaitable<VerificationToken | null>
}

/**
 * The adapter's key-value store (revocation watermarks, replay guards, rate limits). Gatehouse uses it unless the
 * config names another `store`; the shipped adapters keep it in the same database.
 */
export interface StoreAdapter {
  store: KeyValueStore
}

/** A storage adapter. Every method is optional; the features in use decide which must exist. */
export type Adapter = Partial<
  UserAdapter &
    SessionAdapter &
    SessionManagementAdapter &
    IdpSessionAdapter &
    VerificationTokenAdapter &
    AuthenticatorAdapter &
    TwoFactorAdapter &
    PasswordAdapter &
    UserDirectoryAdapter &
    AuditAdapter &
    StoreAdapter
>

/**
 * An adapter may also offer `transaction(fn)`: several writes as one unit (a throw rolls them all back). The core uses
 * it to create a user together with its first account (the PostgreSQL adapter has it).
 */
export interface TransactionAdapter {
  transaction<T>(fn: (tx: Adapter) => Promise<T>): Promise<T>
}

/** Every method name of the contract: the groups of `Adapter`, `updateAccountTokens` and `transaction`. */
export type AdapterMethod = Exclude<keyof Adapter, "store"> | keyof AccountTokenAdapter | keyof TransactionAdapter

/**
 * The methods that may delete or change a stored session, or the user a session read answers with. A cache of
 * `getSessionAndUser` answers (the core's `session.cache`) must drop what each of them touches, or it would serve a
 * deleted session for its lifetime. `transaction` is here because the writes inside it may be any of the others.
 */
export const sessionMutators = [
  "updateSession",
  "deleteSession",
  "deleteSessions",
  "deleteSessionsByIdp",
  "updateUser",
  "deleteUser",
  "unlinkAccount",
  "transaction",
] as const satisfies readonly AdapterMethod[]

/** A method of {@link sessionMutators}. */
export type SessionMutator = (typeof sessionMutators)[number]

/**
 * Every other method, each named once: none of them can delete or change a stored session or its user (reads, and
 * writes of other records). Together with {@link sessionMutators} this lists the whole contract, and the compiler holds
 * it to that: the `satisfies` clause below wants exactly the methods of {@link AdapterMethod} that are not mutators,
 * so a method added to any group of the contract fails to compile ("property … is missing") until it is put here or
 * in `sessionMutators`, and a mutator listed here as well fails too ("may only specify known properties"). That is
 * how a new session-deleting method cannot be forgotten by the session cache.
 */
export const sessionNeutral = {
  createUser: true,
  getUser: true,
  getUserByEmail: true,
  getUserByAccount: true,
  linkAccount: true,
  getAccount: true,
  updateAccountTokens: true,
  createSession: true,
  getSessionAndUser: true,
  listSessionsByUserId: true,
  createVerificationToken: true,
  useVerificationToken: true,
  getAuthenticator: true,
  createAuthenticator: true,
  listAuthenticatorsByUserId: true,
  updateAuthenticatorCounter: true,
  deleteAuthenticator: true,
  updateAuthenticator: true,
  getTwoFactor: true,
  upsertTwoFactor: true,
  updateTwoFactor: true,
  deleteTwoFactor: true,
  getPasswordAccount: true,
  setPasswordHash: true,
  listUsers: true,
  listAccountsByUserId: true,
  createAuditEvent: true,
  listAuditEvents: true,
  deleteAuditEvents: true,
} as const satisfies { readonly [M in Exclude<AdapterMethod, SessionMutator>]: true }

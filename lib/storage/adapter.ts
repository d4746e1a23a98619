/**
 * The adapter contract: how Gatehouse stores users, accounts, sessions, verification tokens and WebAuthn
 * authenticators. Methods are grouped by the feature that needs them; every method is optional in `Adapter`, and the
 * config check names the missing ones for each feature in use.
 */
import type { Awaitable } from "../models"
import type { KeyValueStore } from "./kv"

/**
 * A user as stored by an adapter. `email` is matched case-insensitively; it is `null` only for an OAuth user whose
 * provider shared no address. The administration fields are optional: an Auth.js adapter has none of them, and the
 * shipped adapters answer them on every read (`banned` false, the others `null`, when never set).
 */
export interface AdapterUser {
  id: string
  name?: string | null
  email: string | null
  emailVerified: Date | null
  image?: string | null
  /** The user's role (the default `isAdmin` checks `"admin"`); `null` for none. */
  role?: string | null
  /** Whether the user is banned; a ban with a past `banExpires` no longer blocks. */
  banned?: boolean
  /** Why the user was banned, for admins only (never shown to the user). */
  banReason?: string | null
  /** When the ban ends; `null` for a permanent one. */
  banExpires?: Date | null
  [key: string]: unknown
}

/** Kinds of accounts an adapter stores (credentials accounts are never stored; `password` is the Password provider's). */
export type AdapterAccountType = "oauth" | "oidc" | "email" | "webauthn" | "password"

/** A link between a user and a provider account, with the OAuth token fields in snake_case. */
export interface AdapterAccount {
  userId: string
  type: AdapterAccountType
  provider: string
  providerAccountId: string
  access_token?: string
  refresh_token?: string
  expires_at?: number
  token_type?: string
  scope?: string
  id_token?: string
  session_state?: string
  [key: string]: unknown
}

/**
 * A database session. `sessionToken` is the key the row is stored under: Gatehouse writes `sha256:<hex>` of the token
 * the cookie holds (rows written by Auth.js hold the raw token). The other fields are optional columns for session
 * management; adapters that lack them simply omit them.
 */
export interface AdapterSession {
  sessionToken: string
  userId: string
  expires: Date
  /** When the session was issued (the sign-in). */
  createdAt?: Date | null
  /** Bumped when the expiry slides (at most once per `session.updateAge`). */
  lastActiveAt?: Date | null
  /** The first 256 characters of the `User-Agent` that signed in. */
  userAgent?: string | null
  /** The client address, truncated, when the app opts in. */
  ip?: string | null
  /** OIDC sign-ins: the provider id, the OP's session id (`sid`) and subject, and the ID token's `iat` (seconds). */
  provider?: string | null
  idpSid?: string | null
  idpSub?: string | null
  authTime?: number | null
  /** An impersonation session: the id of the admin who started it (accounts.md §3.5). */
  impersonatedBy?: string | null
}

/** A single-use email sign-in token; `token` is the SHA-256 hash of what was mailed. */
export interface VerificationToken {
  identifier: string
  token: string
  expires: Date
}

/** A WebAuthn credential of a user. */
export interface AdapterAuthenticator {
  userId: string
  providerAccountId: string
  counter: number
  credentialBackedUp: boolean
  credentialID: string
  credentialPublicKey: string
  transports?: string | null
  credentialDeviceType: string
  /** A label the user sees ("iCloud Keychain", "Passkey"); optional, absent on rows written by Auth.js adapters. */
  name?: string | null
  /** The authenticator model (AAGUID, 8-4-4-4-12 hex) reported at registration. */
  aaguid?: string | null
  /** When the credential was registered. */
  createdAt?: Date | null
  /** When the credential last signed in (set by the compare-and-swap counter update). */
  lastUsedAt?: Date | null
}

/** Options of the compare-and-swap form of `updateAuthenticatorCounter`. */
export interface CounterUpdateOptions {
  /**
   * The counter the caller read. The update happens only while the stored counter still equals it and the new value
   * is not lower; it also sets `lastUsedAt`. When it does not happen the method returns `null`.
   */
  expected?: number
}

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
 * The password row of a user (the `Password` provider): an account with `provider` and `type` `"password"`, keyed by
 * the user id. Only `getPasswordAccount` answers `passwordHash`; the shipped adapters leave it out of every other
 * account answer.
 */
export interface AdapterPasswordAccount extends AdapterAccount {
  type: "password"
  provider: "password"
  providerAccountId: string
  passwordHash: string
  /** When a user action last set the password (sign-up, reset, change, set); `null` for imports and re-hashes only. */
  passwordChangedAt: Date | null
}

/** Options of {@link PasswordAdapter.setPasswordHash}. */
export interface SetPasswordHashOptions {
  /**
   * Absent: insert or overwrite (imports). `null`: insert only when the user has no password row (sign-up, set). A
   * string: update only while the stored hash equals it (change, reset, re-hash).
   */
  expected?: string | null
  /** Written to `passwordChangedAt`; absent, the column keeps its value (`null` on insert). */
  changedAt?: Date
}

/** Email and password accounts (the `Password` provider): read and write a user's password hash. */
export interface PasswordAdapter {
  /** The user's password row, or null when the user has no password. */
  getPasswordAccount(userId: string): Awaitable<AdapterPasswordAccount | null>
  /**
   * Writes the hash as one atomic statement under the condition of `options.expected`; resolves to the row written,
   * or null when the condition failed (nothing written). An unknown user is `adapter_not_found`.
   */
  setPasswordHash(
    userId: string,
    passwordHash: string,
    options?: SetPasswordHashOptions,
  ): Awaitable<AdapterPasswordAccount | null>
}

/** WebAuthn authenticators. */
export interface AuthenticatorAdapter {
  getAuthenticator(credentialID: string): Awaitable<AdapterAuthenticator | null>
  createAuthenticator(authenticator: AdapterAuthenticator): Awaitable<AdapterAuthenticator>
  listAuthenticatorsByUserId(userId: string): Awaitable<AdapterAuthenticator[]>
  /**
   * Without `opts.expected`: an unconditional write (Auth.js), throwing for an unknown credential. With it: a
   * compare-and-swap that never lowers the counter and answers `null` when it missed.
   */
  updateAuthenticatorCounter(
    credentialID: string,
    newCounter: number,
    opts?: CounterUpdateOptions,
  ): Awaitable<AdapterAuthenticator | null>
  /** Deletes one credential; answers the deleted row, or `null` when there was none. */
  deleteAuthenticator(credentialID: string): Awaitable<AdapterAuthenticator | null>
  /** Changes the name or last-use time of a credential; answers the updated row, or `null` when there is none. */
  updateAuthenticator(
    credentialID: string,
    patch: { name?: string | null; lastUsedAt?: Date | null },
  ): Awaitable<AdapterAuthenticator | null>
}

/** Where a `listUsers` page starts: strictly after this user in the listing order. */
export interface UserCursor {
  /** The lower-cased email of the last user returned, or `null` for a user without one. */
  emailKey: string | null
  id: string
}

/**
 * Administration and self-service reads (accounts.md §6.1): users in a stable order for keyset pagination, and every
 * account row of a user.
 */
export interface UserDirectoryAdapter {
  /**
   * Users ordered by lower-cased email, then id; users without an email last, by id. `emailPrefix` (lower-cased by
   * the caller) and `id` (exact) filter, OR-ed when both are given; `after` starts strictly after that user.
   */
  listUsers(filter: { emailPrefix?: string; id?: string; after?: UserCursor; limit: number }): Awaitable<AdapterUser[]>
  /** Every account row of the user, tokens included (the core strips them). */
  listAccountsByUserId(userId: string): Awaitable<AdapterAccount[]>
}

/** A value of an audit event's `details`: only flat scalars (the allowlist of accounts.md table 4.2). */
export type AuditDetailValue = string | number | boolean | null

/**
 * One audit event as stored (accounts.md §4.1): `at` keeps milliseconds. It never holds a secret or an email address;
 * `details` holds only the keys the core's allowlist names for its type.
 */
export interface AdapterAuditEvent {
  /** 22 base64url characters (128 random bits). */
  id: string
  type: string
  at: Date
  userId: string | null
  actorId: string | null
  ip: string | null
  userAgent: string | null
  provider: string | null
  outcome: "success" | "failure"
  reason: string | null
  details?: Record<string, AuditDetailValue> | null
}

/** Which audit events a listing wants: newest first by `(at, id)`, strictly before `before`, at most `limit`. */
export interface AuditEventFilter {
  userId?: string
  type?: string
  before?: { at: Date; id: string }
  limit: number
}

/** The audit trail's storage (optional; all four shipped adapters have it). */
export interface AuditAdapter {
  /**
   * Stores one event. `options.expires` is when retention will prune it (a store with TTLs, such as Redis, may drop
   * it by itself then).
   */
  createAuditEvent(
    event: AdapterAuditEvent,
    options?: { expires?: Date },
  ): Awaitable<AdapterAuditEvent | null | undefined | void>
  /** Events newest first by `(at, id)`, filtered by user and/or type, strictly before `before`. */
  listAuditEvents(filter: AuditEventFilter): Awaitable<AdapterAuditEvent[]>
  /** Deletes the events with `at < before`; resolves to how many went. */
  deleteAuditEvents(filter: { before: Date }): Awaitable<number>
}

/**
 * A user's two-factor row: the TOTP secret (sealed, never raw), whether the enrolment was confirmed, the last accepted
 * time step (the replay guard) and the keyed hashes of the backup codes (`null` = used). `version` starts at 0 and
 * every update bumps it (the compare-and-swap of {@link TwoFactorAdapter.updateTwoFactor}).
 */
export interface AdapterTwoFactor {
  userId: string
  /** `gh1.<JWE>`: the secret encrypted under a key derived from the config's secret, bound to `userId`. */
  secret: string
  /** `null` while an enrolment awaits its first code. */
  verifiedAt: Date | null
  /** The last accepted TOTP time step (`floor(unix / 30)`); 0 = none. */
  lastUsedStep: number
  /** Keyed hashes of the backup codes; `null` for a used one. */
  backupCodes: Array<string | null>
  version: number
  createdAt: Date
  updatedAt: Date
}

/** The fields `updateTwoFactor` may change. */
export type TwoFactorPatch = Partial<Pick<AdapterTwoFactor, "secret" | "verifiedAt" | "lastUsedStep" | "backupCodes">>

/** Two-factor sign-in: one row per user, written by compare-and-swap. */
export interface TwoFactorAdapter {
  getTwoFactor(userId: string): Awaitable<AdapterTwoFactor | null>
  /** Creates or replaces the user's row; resolves to the stored row (version 0). */
  upsertTwoFactor(row: AdapterTwoFactor): Awaitable<AdapterTwoFactor>
  /**
   * Applies `patch` only while the stored version equals `expectedVersion`, bumping `version` and `updatedAt`.
   * Resolves to the updated row, or `null` when the row is missing or the version moved (nothing written).
   */
  updateTwoFactor(
    userId: string,
    patch: TwoFactorPatch,
    options: { expectedVersion: number },
  ): Awaitable<AdapterTwoFactor | null>
  /** Deletes the row; resolves to it, or `null` when there was none. */
  deleteTwoFactor(userId: string): Awaitable<AdapterTwoFactor | null>
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

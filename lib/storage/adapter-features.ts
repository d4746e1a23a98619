/**
 * Feature groups of the adapter contract: the Password provider's rows, WebAuthn authenticators, the user directory
 * (administration), the audit trail and two-factor sign-in. `Adapter` (./adapter) puts them together.
 */
import type { Awaitable } from "../models"
import type { AdapterAccount, AdapterAuthenticator, AdapterUser, CounterUpdateOptions } from "./adapter-models"

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

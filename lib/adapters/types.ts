/**
 * The adapter contract: how Gatehouse stores users, accounts, sessions, verification tokens and WebAuthn
 * authenticators. Methods are grouped by the feature that needs them; every method is optional in `Adapter`, and the
 * config check names the missing ones for each feature in use.
 */
import type { Awaitable } from "../core/types"

/**
 * A user as stored by an adapter. `email` is matched case-insensitively; it is `null` only for an OAuth user whose
 * provider shared no address.
 */
export interface AdapterUser {
  id: string
  name?: string | null
  email: string | null
  emailVerified: Date | null
  image?: string | null
  [key: string]: unknown
}

/** Kinds of accounts an adapter stores (credentials accounts are never stored). */
export type AdapterAccountType = "oauth" | "oidc" | "email" | "webauthn"

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

/** A database session: the cookie holds `sessionToken`. */
export interface AdapterSession {
  sessionToken: string
  userId: string
  expires: Date
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

/** Email sign-in tokens. `useVerificationToken` must delete atomically what it returns. */
export interface VerificationTokenAdapter {
  createVerificationToken(token: VerificationToken): Awaitable<VerificationToken | null | undefined | void>
  useVerificationToken(params: { identifier: string; token: string }): Awaitable<VerificationToken | null>
}

/** WebAuthn authenticators. */
export interface AuthenticatorAdapter {
  getAuthenticator(credentialID: string): Awaitable<AdapterAuthenticator | null>
  createAuthenticator(authenticator: AdapterAuthenticator): Awaitable<AdapterAuthenticator>
  listAuthenticatorsByUserId(userId: string): Awaitable<AdapterAuthenticator[]>
  updateAuthenticatorCounter(credentialID: string, newCounter: number): Awaitable<AdapterAuthenticator>
}

/** A storage adapter. Every method is optional; the features in use decide which must exist. */
export type Adapter = Partial<UserAdapter & SessionAdapter & VerificationTokenAdapter & AuthenticatorAdapter>

/**
 * An adapter may also offer `transaction(fn)`: several writes as one unit (a throw rolls them all back). The core uses
 * it to create a user together with its first account (the PostgreSQL adapter has it).
 */
export interface TransactionAdapter {
  transaction<T>(fn: (tx: Adapter) => Promise<T>): Promise<T>
}

/** The methods each feature requires, as the config check reports them. */
export const requiredAdapterMethods = {
  email: ["createVerificationToken", "useVerificationToken", "getUserByEmail"],
  database: [
    "createUser",
    "getUser",
    "getUserByEmail",
    "getUserByAccount",
    "updateUser",
    "linkAccount",
    "createSession",
    "getSessionAndUser",
    "updateSession",
    "deleteSession",
  ],
  webauthn: [
    "createUser",
    "getUser",
    "linkAccount",
    "getAccount",
    "getAuthenticator",
    "createAuthenticator",
    "listAuthenticatorsByUserId",
    "updateAuthenticatorCounter",
  ],
} as const satisfies Record<string, ReadonlyArray<keyof Adapter>>

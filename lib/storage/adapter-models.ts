/** The records of the adapter contract: users, accounts, sessions, verification tokens and WebAuthn authenticators. */

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

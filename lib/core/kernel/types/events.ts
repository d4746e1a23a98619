/** The `events` option: side-effect handlers run after the fact, and what each receives. */
import type { AdapterSession, AdapterUser } from "../../../storage/adapter"
import type { Account, Awaitable, JWT, Profile, Session, User } from "../../../models"
import type { RateLimitedEvent } from "../rate-limit/types"

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
  rateLimited: RateLimitedEvent
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
  /** Gatehouse: `getAccessToken()` failed for good (`invalid_grant`, `id_token_mismatch`, `no_refresh_token`). */
  refreshTokenError: (message: { provider: string; userId?: string; reason: string }) => Awaitable<void>
  /** Gatehouse (tokens.md T3): an access token was issued (never the token itself). */
  accessTokenIssued: (message: { userId: string; audience: string; scope?: string; jti: string }) => Awaitable<void>
  /** Gatehouse (tokens.md T3.4): the generated access-token signing keys rotated. */
  signingKeyRotated: (message: { kid: string; previousKid?: string }) => Awaitable<void>
  /** Gatehouse (tokens.md T2): a native one-time code was redeemed for a new bearer session. */
  nativeSignIn: (message: { user: User | AdapterUser; provider: string; redirectUri: string }) => Awaitable<void>
  /** Gatehouse: a security-relevant event, e.g. `webauthn.counter_regression` (a cloned or replayed authenticator). */
  securityAlert: (
    message:
      | { type: "webauthn.counter_regression"; userId: string; credentialID: string }
      | { type: "twofactor.locked" | "twofactor.trust_replayed"; userId: string }
      | { type: "native.code_reuse"; userId: string },
  ) => Awaitable<void>
}

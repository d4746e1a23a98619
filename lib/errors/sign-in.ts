/** The verdicts of a sign-in: refused, failed or rate-limited, per method (credentials, OAuth, email, WebAuthn). */

import type { ErrorType } from "../error-codes"
import { AuthError, SignInError } from "./base"

/** The `signIn` callback returned false or threw. */
export class AccessDenied extends AuthError {
  static override type: ErrorType = "AccessDenied"
}

/**
 * Sign-in with the credentials provider failed. Subclass it to set a `code`, which reaches the URL
 * (`error=CredentialsSignin&code=<code>`), so it must not say which of the credentials was wrong.
 */
export class CredentialsSignin extends SignInError {
  static override type: ErrorType = "CredentialsSignin"
  /** Sent to the client in the `code` query parameter. */
  override code = "credentials"
}

/** The OAuth account is already linked to another user, or its email belongs to another user. */
export class OAuthAccountNotLinked extends SignInError {
  static override type: ErrorType = "OAuthAccountNotLinked"
}

/** The OAuth provider answered the callback with an error. */
export class OAuthCallbackError extends SignInError {
  static override type: ErrorType = "OAuthCallbackError"
}

/** Starting an OAuth sign-in failed. */
export class OAuthSignInError extends SignInError {
  static override type: ErrorType = "OAuthSignInError"
}

/** The provider's `profile()` threw or returned something unusable. */
export class OAuthProfileParseError extends AuthError {
  static override type: ErrorType = "OAuthProfileParseError"
}

/**
 * The OAuth/OIDC engine rejected a provider's answer (token response, ID token, userinfo, discovery). The protocol
 * library's code is in `cause.code` (an oauth4webapi or jose code), next to `cause.reason` and `cause.provider`.
 */
export class OAuthProtocolError extends AuthError {
  static override type: ErrorType = "OAuthProtocolError"
}

/** Sending a sign-in email failed. */
export class EmailSignInError extends SignInError {
  static override type: ErrorType = "EmailSignInError"
}

/** A sign-in link is invalid, used or expired. */
export class Verification extends AuthError {
  static override type: ErrorType = "Verification"
}

/** The CSRF token was missing or wrong. */
export class MissingCSRF extends SignInError {
  static override type: ErrorType = "MissingCSRF"
}

/** A WebAuthn credential is already linked to another user. */
export class AccountNotLinked extends SignInError {
  static override type: ErrorType = "AccountNotLinked"
}

/** A WebAuthn response did not verify. */
export class WebAuthnVerificationError extends AuthError {
  static override type: ErrorType = "WebAuthnVerificationError"
}

/**
 * A rate limit refused the request before any credential, email or authenticator work. Browsers are sent back to the
 * sign-in page (`error=RateLimited&retry=<seconds>`); JSON routes answer 429 `{"error":"RateLimited"}`. Both carry
 * `Retry-After`.
 */
export class RateLimited extends SignInError {
  static override type: ErrorType = "RateLimited"
  static override defaultStatus: number | undefined = 429
  /** Seconds until the window that refused the request ends (at least 1). */
  retryAfter = 1
}

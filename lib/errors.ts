/**
 * Error classes of Gatehouse. Each has a stable `type` (wire-compatible with Auth.js) and a `kind` that decides which
 * page a browser is sent to. Messages are short and fixed; data goes into `cause`.
 *
 * @example
 * ```ts
 * import { CredentialsSignin } from "gatehouse-auth/errors"
 * class InvalidLogin extends CredentialsSignin { code = "invalid_login" }
 * ```
 */

import { defaultCodes, type AccessTokenErrorCode, type AuthErrorCode, type ErrorType } from "./error-codes"

export type { AccessTokenErrorCode, AuthErrorCode, ErrorType }

/** Which built-in page a browser lands on for an error. */
export type ErrorPageKind = "signIn" | "error"

/** Extra data attached to an error. `err` holds the underlying error, if any. */
export type ErrorCause = Record<string, unknown> & { err?: Error }

/** Options of every Gatehouse error: the constructor's second argument. */
export interface AuthErrorOptions {
  /**
   * What caused the error: an underlying `Error` (kept as `cause.err`) or a record of data (for the OAuth engine
   * `{ code, reason, provider }`, where `code` is the protocol library's code).
   */
  cause?: Error | ErrorCause
  /** A finer {@link AuthErrorCode} than the class's default (e.g. `adapter_conflict`). */
  code?: AuthErrorCode
  /**
   * The HTTP status of the answer when the action answers scripts rather than browsers (JSON routes): e.g. 400 for a
   * failed CSRF check on POST /session, 429 for a rate limit. Page routes redirect regardless.
   */
  status?: number
  /** Headers of that answer (e.g. `Retry-After`). */
  headers?: Readonly<Record<string, string>>
}

/**
 * Base class of every Gatehouse error. Every error is built the same way: `new X(message?, { cause, code, status,
 * headers })`. Compare `code` (or `type`), not the message.
 *
 * @example
 * ```ts
 * const error = new AuthError("Something broke", { cause: { provider: "github" } })
 * error.code // "auth_error"
 * ```
 */
export class AuthError extends Error {
  /** Identifies the error in logs and, when client-safe, in the `error=` query of a redirect. */
  type: ErrorType
  /** The stable code of this error; see {@link AuthErrorCode}. */
  code: string
  /** The page a browser is sent to: `signIn` or `error`. */
  kind: ErrorPageKind
  declare cause?: ErrorCause
  /** See {@link AuthErrorOptions.status}. */
  status?: number
  /** See {@link AuthErrorOptions.headers}. */
  headers?: Readonly<Record<string, string>>

  constructor(message?: string, options: AuthErrorOptions = {}) {
    const cause = options.cause instanceof Error ? { err: options.cause } : options.cause
    super(message, cause === undefined ? undefined : { cause })
    const ctor = new.target as unknown as { type?: ErrorType; kind?: ErrorPageKind; defaultStatus?: number }
    this.type = ctor.type ?? "AuthError"
    this.kind = ctor.kind ?? "error"
    this.code = options.code ?? defaultCodes[this.type]
    this.name = new.target.name
    // The class's status unless the caller gives one (a class field would override the caller's).
    const status = options.status ?? ctor.defaultStatus
    if (status !== undefined) this.status = status
    if (options.headers !== undefined) this.headers = options.headers
  }

  static type: ErrorType = "AuthError"
  static kind: ErrorPageKind = "error"
  /** The status of this class's errors on JSON routes, when the constructor is given none. */
  static defaultStatus: number | undefined = undefined
}

/** Base of the errors that send a browser back to the sign-in page. */
export class SignInError extends AuthError {
  static override kind: ErrorPageKind = "signIn"
}

/** The `signIn` callback returned false or threw. */
export class AccessDenied extends AuthError {
  static override type: ErrorType = "AccessDenied"
}
/** An adapter method threw. */
export class AdapterError extends AuthError {
  static override type: ErrorType = "AdapterError"
}
/** An unexpected error inside the callback route. */
export class CallbackRouteError extends AuthError {
  static override type: ErrorType = "CallbackRouteError"
}
/** A configuration error happened while the error page itself was requested. */
export class ErrorPageLoop extends AuthError {
  static override type: ErrorType = "ErrorPageLoop"
}
/** An `events.*` handler threw; logged, the flow continues. */
export class EventError extends AuthError {
  static override type: ErrorType = "EventError"
}
/** A callback URL that is not a valid http(s) URL. */
export class InvalidCallbackUrl extends AuthError {
  static override type: ErrorType = "InvalidCallbackUrl"
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
/** An OAuth provider has neither an issuer nor the endpoint named in the message. */
export class InvalidEndpoints extends AuthError {
  static override type: ErrorType = "InvalidEndpoints"
}
/** A state, PKCE, nonce or WebAuthn challenge check failed. */
export class InvalidCheck extends AuthError {
  static override type: ErrorType = "InvalidCheck"
}
/** A JWT session could not be read. */
export class JWTSessionError extends AuthError {
  static override type: ErrorType = "JWTSessionError"
}
/** A feature needs an adapter and none is configured. */
export class MissingAdapter extends AuthError {
  static override type: ErrorType = "MissingAdapter"
}
/** The adapter lacks methods a feature needs. */
export class MissingAdapterMethods extends AuthError {
  static override type: ErrorType = "MissingAdapterMethods"
}
/** A credentials provider has no `authorize` function. */
export class MissingAuthorize extends AuthError {
  static override type: ErrorType = "MissingAuthorize"
}
/** No secret is configured. */
export class MissingSecret extends AuthError {
  static override type: ErrorType = "MissingSecret"
}
/** The name the interface spec uses for {@link MissingSecret}; same class, `type` stays `MissingSecret`. */
export const MissingSecretError = MissingSecret
export type MissingSecretError = MissingSecret
/** The OAuth account is already linked to another user, or its email belongs to another user. */
export class OAuthAccountNotLinked extends SignInError {
  static override type: ErrorType = "OAuthAccountNotLinked"
}
/** The OAuth provider answered the callback with an error. */
export class OAuthCallbackError extends SignInError {
  static override type: ErrorType = "OAuthCallbackError"
}
/** The provider's `profile()` threw or returned something unusable. */
export class OAuthProfileParseError extends AuthError {
  static override type: ErrorType = "OAuthProfileParseError"
}
/** A database session could not be read. */
export class SessionTokenError extends AuthError {
  static override type: ErrorType = "SessionTokenError"
}
/** Starting an OAuth sign-in failed. */
export class OAuthSignInError extends SignInError {
  static override type: ErrorType = "OAuthSignInError"
}
/** Sending a sign-in email failed. */
export class EmailSignInError extends SignInError {
  static override type: ErrorType = "EmailSignInError"
}
/** Signing out failed; logged, the flow continues. */
export class SignOutError extends AuthError {
  static override type: ErrorType = "SignOutError"
}
/** The request names no known action, or an action with the wrong method. */
export class UnknownAction extends AuthError {
  static override type: ErrorType = "UnknownAction"
}
/** The provider does not exist or cannot serve this route. */
export class InvalidProvider extends AuthError {
  static override type: ErrorType = "InvalidProvider"
}
/** The host of the request is not trusted (`trustHost`). */
export class UntrustedHost extends AuthError {
  static override type: ErrorType = "UntrustedHost"
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
/** A configuration value is invalid (Gatehouse-specific: shapes the reference does not check). */
export class InvalidConfig extends AuthError {
  static override type: ErrorType = "InvalidConfig"
}

/** The request could not be read: a malformed body, a body over the size limit, a bad content type. */
export class InvalidRequest extends AuthError {
  static override type: ErrorType = "InvalidRequest"
}

/**
 * The OAuth/OIDC engine rejected a provider's answer (token response, ID token, userinfo, discovery). The protocol
 * library's code is in `cause.code` (an oauth4webapi or jose code), next to `cause.reason` and `cause.provider`.
 */
export class OAuthProtocolError extends AuthError {
  static override type: ErrorType = "OAuthProtocolError"
}

/**
 * Whether an error means a service Gatehouse depends on (the database, the identity provider) is down or too slow, so
 * the same request may succeed later: API clients are answered 503 with `Retry-After`.
 *
 * @example
 * ```ts
 * isServiceUnavailable(new AdapterError("Adapter call timed out", { code: "adapter_timeout" })) // true
 * ```
 */
export function isServiceUnavailable(error: unknown): error is AuthError {
  return (
    error instanceof AuthError &&
    (error.code === "adapter_timeout" || error.code === "adapter_unavailable" || error.code === "oauth_unavailable")
  )
}

/** `auth()`, `signIn()`... were called without a request, outside the request context `app.use(auth)` opens. */
export class MissingRequestContext extends AuthError {
  static override type: ErrorType = "MissingRequestContext"
}

/** A management call named something the signed-in user does not own; a foreign id answers exactly like a missing one. */
export class NotFound extends AuthError {
  static override type: ErrorType = "NotFound"
  /** HTTP status of the management routes. */
  static override defaultStatus: number | undefined = 404
}
/** A sensitive management call needs a recent sign-in (`freshAge`). */
export class SessionNotFresh extends AuthError {
  static override type: ErrorType = "SessionNotFresh"
  static override defaultStatus: number | undefined = 403
}
/** Deleting this credential would leave the user with no way to sign in. */
export class LastCredential extends AuthError {
  static override type: ErrorType = "LastCredential"
  static override defaultStatus: number | undefined = 409
}

/** Why a refresh failed: the `cause.reason` of a {@link RefreshTokenError}. */
export type RefreshFailureReason = "invalid_grant" | "no_refresh_token" | "transient" | "id_token_mismatch"

/**
 * `getAccessToken()` could not hand out a valid access token. `cause.reason` says why: `invalid_grant` (the provider
 * refused the refresh token: sign in again), `no_refresh_token` (expired and nothing to refresh with), `transient`
 * (network, 5xx, timeout or a busy lock: try later) or `id_token_mismatch` (the refreshed ID token names another
 * subject or issuer). The session then carries `error: "RefreshTokenError"` for the first and last.
 */
export class RefreshTokenError extends SignInError {
  static override type: ErrorType = "RefreshTokenError"
  declare cause?: ErrorCause & { reason: RefreshFailureReason; provider?: string }
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

/**
 * A request to an API protected by `gatehouse-auth/resource` was refused (tokens.md T4): `status` (400, 401, 403 or
 * 503), `error` (the RFC 6750 / RFC 9449 code of the answer), `code` (Gatehouse's finer reason) and `headers`
 * (`WWW-Authenticate`, `Cache-Control: no-store`). `toResponse()` is the answer to send. The message is the fixed
 * description of the code: never a token, a claim value or key material.
 *
 * @example
 * ```ts
 * try { await verifyAccessToken(request, options) } catch (e) { if (e instanceof AccessTokenError) return e.toResponse() }
 * ```
 */
export class AccessTokenError extends AuthError {
  static override type: ErrorType = "AccessTokenError"
  declare code: AccessTokenErrorCode
  declare status: number
  declare headers: Readonly<Record<string, string>>
  /** The RFC code of the answer: `invalid_request`, `invalid_token`, `invalid_dpop_proof`, `insufficient_scope`, ... */
  readonly error: string

  constructor(
    message: string,
    options: AuthErrorOptions & { code: AccessTokenErrorCode; error: string; status: number },
  ) {
    super(message, options)
    this.error = options.error
    this.status = options.status
    this.headers = options.headers ?? {}
  }

  /** The answer: JSON `{error, error_description, code}` with the status and headers. */
  toResponse(): Response {
    const body = JSON.stringify({ error: this.error, error_description: this.message, code: this.code })
    return new Response(body, {
      status: this.status,
      headers: { "Content-Type": "application/json", ...this.headers },
    })
  }
}

/**
 * A native-app sign-in request (tokens.md T2) was refused: an unregistered redirect URI, a bad PKCE challenge or
 * state, or a continuation context that is missing, forged or expired. The browser lands on the error page.
 */
export class NativeSignInError extends AuthError {
  static override type: ErrorType = "NativeSignInError"
}

/**
 * The Password provider refused a password where one is set (sign-up, reset, change, set): `code` is `missing`,
 * `too_short`, `too_long`, `blocklisted`, `breached` or `breach_check_failed` (503); `cause` carries the lengths.
 */
export class PasswordPolicy extends AuthError {
  static override type: ErrorType = "PasswordPolicy"
}
/**
 * An email address that cannot be used (`invalid_email`; for an email change, also the current address), or none where
 * one is needed (`missing`).
 */
export class InvalidEmail extends AuthError {
  static override type: ErrorType = "InvalidEmail"
  static override defaultStatus: number | undefined = 400
}
/** A correct password for an address that must be confirmed first (`requireEmailVerification`). */
export class EmailNotVerified extends SignInError {
  static override type: ErrorType = "EmailNotVerified"
  static override defaultStatus: number | undefined = 403
}
/** The current password given to a change was wrong. */
export class PasswordIncorrect extends AuthError {
  static override type: ErrorType = "PasswordIncorrect"
  static override defaultStatus: number | undefined = 400
}
/** A change for a user who has no password (set one first). */
export class PasswordNotSet extends AuthError {
  static override type: ErrorType = "PasswordNotSet"
  static override defaultStatus: number | undefined = 400
}
/** Setting a first password for a user who already has one. */
export class PasswordAlreadySet extends AuthError {
  static override type: ErrorType = "PasswordAlreadySet"
  static override defaultStatus: number | undefined = 409
}
/** The call needs a signed-in user and the request has no valid session (401; JSON body `{"error":"Unauthorized"}`). */
// Accounts and administration (accounts.md §5). Each carries the status a JSON route answers with.

/** A server function or route that needs a session was called without one (JSON routes answer `Unauthorized`). */
export class SessionRequired extends AuthError {
  static override type: ErrorType = "SessionRequired"
  static override defaultStatus: number | undefined = 401
}

/** A two-factor sign-in must start again: its challenge is missing, expired, used or out of attempts. */
export class TwoFactorRequired extends SignInError {
  static override type: ErrorType = "TwoFactorRequired"
  static override defaultStatus: number | undefined = 401
}

/** A second-factor code (TOTP, backup code or emailed code) was wrong, used, or not a code at all. */
export class TwoFactorInvalid extends SignInError {
  static override type: ErrorType = "TwoFactorInvalid"
  static override defaultStatus: number | undefined = 400
}

/** `enableTotp` for a user whose two-factor sign-in is already on. */
export class TwoFactorAlreadyEnabled extends AuthError {
  static override type: ErrorType = "TwoFactorAlreadyEnabled"
  static override defaultStatus: number | undefined = 409
}

/** An admin function or route was called by someone who is not an admin. */
export class AdminRequired extends AuthError {
  static override type: ErrorType = "AdminRequired"
  static override defaultStatus: number | undefined = 403
}
/** Banning or impersonating an admin is refused: demote first. */
export class AdminTarget extends AuthError {
  static override type: ErrorType = "AdminTarget"
  static override defaultStatus: number | undefined = 403
}
/** Banning, re-roling or impersonating yourself is refused. */
export class InvalidTarget extends AuthError {
  static override type: ErrorType = "InvalidTarget"
  static override defaultStatus: number | undefined = 400
}
/** An impersonation session may read but not change credentials, identity or anything an admin may do. */
export class ImpersonationRestricted extends AuthError {
  static override type: ErrorType = "ImpersonationRestricted"
  static override defaultStatus: number | undefined = 403
}
/** `impersonate` from a session that already impersonates someone. */
export class AlreadyImpersonating extends AuthError {
  static override type: ErrorType = "AlreadyImpersonating"
  static override defaultStatus: number | undefined = 409
}
/** `stopImpersonating` from a session that is not an impersonation session. */
export class NotImpersonating extends AuthError {
  static override type: ErrorType = "NotImpersonating"
  static override defaultStatus: number | undefined = 409
}
/** The account is suspended: every sign-in path refuses it (the reason never reaches the client). */
export class AccountBanned extends SignInError {
  static override type: ErrorType = "AccountBanned"
  static override defaultStatus: number | undefined = 403
}
/** The provider account is already linked to another user: nothing was linked. */
export class AccountAlreadyLinked extends AuthError {
  static override type: ErrorType = "AccountAlreadyLinked"
  static override defaultStatus: number | undefined = 409
}
/** Another user has this email address. */
export class EmailInUse extends AuthError {
  static override type: ErrorType = "EmailInUse"
  static override defaultStatus: number | undefined = 409
}
/** A role that is neither `null` nor a short lower-case name (`^[a-z][a-z0-9_-]{0,31}$`). */
export class InvalidRole extends AuthError {
  static override type: ErrorType = "InvalidRole"
  static override defaultStatus: number | undefined = 400
}

/** Error types whose name may reach a browser; every other error is reported as `Configuration`. */
const clientSafeTypes: ReadonlySet<ErrorType> = new Set<ErrorType>([
  "CredentialsSignin",
  "OAuthAccountNotLinked",
  "OAuthCallbackError",
  "AccessDenied",
  "Verification",
  "MissingCSRF",
  "AccountNotLinked",
  "WebAuthnVerificationError",
  // Gatehouse: an invalid address or a failed send is the user's to fix, not a server misconfiguration.
  "EmailSignInError",
  "RefreshTokenError",
  "RateLimited",
  "NativeSignInError",
  "TwoFactorRequired",
  "TwoFactorInvalid",
  "TwoFactorAlreadyEnabled",
  "PasswordPolicy",
  "InvalidEmail",
  "EmailNotVerified",
  "PasswordIncorrect",
  "PasswordNotSet",
  "PasswordAlreadySet",
  "SessionRequired",
  // Accounts, administration (accounts.md §5): each names what the user or the admin must do differently.
  "AdminRequired",
  "AdminTarget",
  "InvalidTarget",
  "ImpersonationRestricted",
  "AlreadyImpersonating",
  "NotImpersonating",
  "AccountBanned",
  "AccountAlreadyLinked",
  "EmailInUse",
  "InvalidRole",
])

/**
 * Whether an error's `type` may be shown to the browser.
 *
 * @example
 * ```ts
 * isClientSafeError(new AccessDenied()) // true
 * ```
 */
export function isClientSafeError(error: unknown): error is AuthError {
  return error instanceof AuthError && clientSafeTypes.has(error.type)
}

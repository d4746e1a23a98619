/** Questions asked of any error: is it an outage worth retrying, may its `type` be shown to a browser. */

import type { ErrorType } from "../error-codes"
import { AuthError } from "./base"

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

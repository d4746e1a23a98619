/** Errors of the Password provider: the password policy, the email address, and setting or changing a password. */

import type { ErrorType } from "../error-codes"
import { AuthError, SignInError } from "./base"

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

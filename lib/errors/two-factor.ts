/** Errors of the second factor (TOTP, backup codes, emailed codes). */

import type { ErrorType } from "../error-codes"
import { AuthError, SignInError } from "./base"

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

/** Errors of self-service account management; each carries the status a JSON route answers with. */

import type { ErrorType } from "../error-codes"
import { AuthError } from "./base"

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

/** A server function or route that needs a session was called without one (JSON routes answer `Unauthorized`). */
export class SessionRequired extends AuthError {
  static override type: ErrorType = "SessionRequired"
  static override defaultStatus: number | undefined = 401
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

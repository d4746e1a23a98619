/** Errors of administration (admin rights, bans, roles, impersonation); each has the status a JSON route answers. */

import type { ErrorType } from "../error-codes"
import { AuthError, SignInError } from "./base"

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

/** A role that is neither `null` nor a short lower-case name (`^[a-z][a-z0-9_-]{0,31}$`). */
export class InvalidRole extends AuthError {
  static override type: ErrorType = "InvalidRole"
  static override defaultStatus: number | undefined = 400
}

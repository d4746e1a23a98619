/**
 * The base of every Gatehouse error: `AuthError`, its options, and `SignInError` (the base of the errors that send a
 * browser back to the sign-in page). The other modules of this folder import this one and nothing else of the folder.
 */

import { defaultCodes, type AuthErrorCode, type ErrorType } from "../error-codes"

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

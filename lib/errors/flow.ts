/** Failures while a request is handled that are not a sign-in's verdict: adapters, routes, checks, sessions. */

import type { ErrorType } from "../error-codes"
import { AuthError } from "./base"

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

/** A state, PKCE, nonce or WebAuthn challenge check failed. */
export class InvalidCheck extends AuthError {
  static override type: ErrorType = "InvalidCheck"
}

/** A JWT session could not be read. */
export class JWTSessionError extends AuthError {
  static override type: ErrorType = "JWTSessionError"
}

/** A database session could not be read. */
export class SessionTokenError extends AuthError {
  static override type: ErrorType = "SessionTokenError"
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

/** The request could not be read: a malformed body, a body over the size limit, a bad content type. */
export class InvalidRequest extends AuthError {
  static override type: ErrorType = "InvalidRequest"
}

/** `auth()`, `signIn()`... were called without a request, outside the request context `app.use(auth)` opens. */
export class MissingRequestContext extends AuthError {
  static override type: ErrorType = "MissingRequestContext"
}

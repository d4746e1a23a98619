/** Token errors: a failed refresh, an access token refused by a protected API, a refused native-app sign-in. */

import type { AccessTokenErrorCode, ErrorType } from "../error-codes"
import { AuthError, SignInError, type AuthErrorOptions, type ErrorCause } from "./base"

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

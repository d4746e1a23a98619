/**
 * The names and codes of Gatehouse's errors: every error `type` (wire-compatible with Auth.js), every stable `code`,
 * and the default code of each type. The classes are in `errors/`, whose index re-exports the two types.
 *
 * @example
 * ```ts
 * import type { AuthErrorCode } from "gatehouse-auth/errors"
 * const retryable = (code: AuthErrorCode) => code === "adapter_timeout" || code === "adapter_unavailable"
 * ```
 */

/** Every error type Gatehouse can raise. */
export type ErrorType =
  | "AccessDenied"
  | "AccountNotLinked"
  | "AdapterError"
  | "AuthError"
  | "CallbackRouteError"
  | "CredentialsSignin"
  | "EmailSignInError"
  | "ErrorPageLoop"
  | "EventError"
  | "InvalidCallbackUrl"
  | "InvalidCheck"
  | "InvalidEndpoints"
  | "InvalidProvider"
  | "JWTSessionError"
  | "MissingAdapter"
  | "MissingAdapterMethods"
  | "MissingAuthorize"
  | "MissingCSRF"
  | "MissingSecret"
  | "OAuthAccountNotLinked"
  | "OAuthCallbackError"
  | "OAuthProfileParseError"
  | "OAuthSignInError"
  | "SessionTokenError"
  | "SignOutError"
  | "UnknownAction"
  | "UntrustedHost"
  | "Verification"
  | "WebAuthnVerificationError"
  | "InvalidConfig"
  | "InvalidRequest"
  | "OAuthProtocolError"
  | "MissingRequestContext"
  | "NotFound"
  | "SessionNotFresh"
  | "LastCredential"
  | "RefreshTokenError"
  | "RateLimited"
  | "AccessTokenError"
  | "NativeSignInError"
  | "TwoFactorRequired"
  | "TwoFactorInvalid"
  | "TwoFactorAlreadyEnabled"
  | "PasswordPolicy"
  | "InvalidEmail"
  | "EmailNotVerified"
  | "PasswordIncorrect"
  | "PasswordNotSet"
  | "PasswordAlreadySet"
  | "SessionRequired"
  | "AdminRequired"
  | "AdminTarget"
  | "InvalidTarget"
  | "ImpersonationRestricted"
  | "AlreadyImpersonating"
  | "NotImpersonating"
  | "AccountBanned"
  | "AccountAlreadyLinked"
  | "EmailInUse"
  | "InvalidRole"

/**
 * The stable, machine-readable code of an error: what code and tests should compare, never the English message. Each
 * class has a default (its `type` in snake case); a few errors name a finer reason:
 * - `adapter_conflict`: a create broke a uniqueness rule (the row exists already, e.g. a concurrent first sign-in);
 * - `adapter_not_found`: an update or delete named a row that does not exist;
 * - `adapter_timeout`: an adapter call took longer than `adapterTimeout`;
 * - `adapter_unavailable`: the database could not be reached (connection refused, reset or closed);
 * - `oauth_unavailable`: the identity provider could not be reached or did not answer within `httpTimeout`.
 *
 * Provider configuration (`InvalidConfig`, at construction): `invalid_provider_option`, `issuer_required`,
 * `request_object_key_invalid`, `dpop_alg_unsupported`, `dpop_adapter_unsupported`, `jarm_unsupported`, the
 * `fapi2_*` rules and the Microsoft Entra ID `entra_*` rules. Sign-in (`OAuthProtocolError`): `par_unavailable`,
 * `par_failed`, `dpop_not_bound`, `dpop_nonce_failed`, `missing_iss`, `entra_issuer_mismatch`, `entra_tid_missing`;
 * `AccessDenied` `tenant_not_allowed`. Refresh (`RefreshTokenError` `cause.code`): `dpop_not_bound`,
 * `dpop_key_unreadable`.
 *
 * `CredentialsSignin` uses `credentials` (or the `code` a subclass sets), which also reaches the URL.
 */
export type AuthErrorCode =
  | "access_denied"
  | "session_required"
  | "two_factor_required"
  | "two_factor_invalid"
  | "two_factor_already_enabled"
  | "account_not_linked"
  | "adapter_conflict"
  | "adapter_error"
  | "adapter_not_found"
  | "adapter_timeout"
  | "adapter_unavailable"
  | "auth_error"
  | "callback_route_error"
  | "credentials"
  | "credentials_signin"
  | "email_sign_in_error"
  | "error_page_loop"
  | "event_error"
  | "invalid_callback_url"
  | "invalid_check"
  | "invalid_config"
  | "invalid_endpoints"
  | "invalid_provider"
  | "invalid_request"
  | "jwt_session_error"
  | "last_credential"
  | "rate_limited"
  | "refresh_token_error"
  | "missing_adapter"
  | "missing_adapter_methods"
  | "missing_authorize"
  | "missing_csrf"
  | "missing_request_context"
  | "missing_secret"
  | "not_found"
  | "oauth_account_not_linked"
  | "oauth_callback_error"
  | "oauth_profile_parse_error"
  | "oauth_protocol_error"
  | "oauth_sign_in_error"
  | "oauth_unavailable"
  | "session_not_fresh"
  | "session_token_error"
  | "sign_out_error"
  | "unknown_action"
  | "untrusted_host"
  | "verification"
  | "webauthn_verification_error"
  | "dpop_adapter_unsupported"
  | "dpop_alg_unsupported"
  | "dpop_key_unreadable"
  | "dpop_nonce_failed"
  | "dpop_not_bound"
  | "entra_allowed_tenants_required"
  | "entra_issuer_invalid"
  | "entra_issuer_mismatch"
  | "entra_tid_missing"
  | "fapi2_alg"
  | "fapi2_checks"
  | "fapi2_client_auth"
  | "fapi2_dpop_required"
  | "fapi2_par_required"
  | "fapi2_redirect_proxy"
  | "invalid_provider_option"
  | "issuer_required"
  | "jarm_invalid"
  | "jarm_unsupported"
  | "missing_iss"
  | "par_failed"
  | "par_unavailable"
  | "request_object_key_invalid"
  | "tenant_not_allowed"
  // The Password provider: `PasswordPolicy` codes, `InvalidEmail` codes, and the flows' own types.
  | "password_policy"
  | "missing"
  | "too_short"
  | "too_long"
  | "blocklisted"
  | "breached"
  | "breach_check_failed"
  | "invalid_email"
  | "email_not_verified"
  | "password_incorrect"
  | "password_not_set"
  | "password_already_set"
  | "session_required"
  | "admin_required"
  | "admin_target"
  | "invalid_target"
  | "impersonation_restricted"
  | "already_impersonating"
  | "not_impersonating"
  | "account_banned"
  | "account_already_linked"
  | "email_in_use"
  | "invalid_role"
  | AccessTokenErrorCode
  | "access_token_error"
  | "native_sign_in_error"
  | "redirect_uri_not_registered"
  | "missing_callback_url"
  | "invalid_code_challenge"
  | "invalid_state"
  | "invalid_context"
  | "invalid_scope"

/** The codes of `AccessTokenError` (`gatehouse-auth/resource`, tokens.md T4 section 6). */
export type AccessTokenErrorCode =
  | "missing_token"
  | "token_in_url"
  | "malformed_authorization"
  | "malformed_token"
  | "unsupported_token"
  | "alg_not_allowed"
  | "wrong_type"
  | "unknown_key"
  | "bad_signature"
  | "wrong_issuer"
  | "wrong_audience"
  | "expired"
  | "not_yet_valid"
  | "iat_invalid"
  | "missing_claim"
  | "inactive"
  | "dpop_bound_token_as_bearer"
  | "dpop_not_bound"
  | "dpop_required"
  | "dpop_missing"
  | "dpop_malformed"
  | "dpop_bad_signature"
  | "dpop_key_mismatch"
  | "dpop_ath_mismatch"
  | "dpop_htm_mismatch"
  | "dpop_htu_mismatch"
  | "dpop_iat"
  | "dpop_replay"
  | "insufficient_scope"
  | "issuer_unavailable"

/** The code of each error type when the thrower names no finer one. */
export const defaultCodes: Record<ErrorType, AuthErrorCode> = {
  AccessDenied: "access_denied",
  AccountNotLinked: "account_not_linked",
  AdapterError: "adapter_error",
  AuthError: "auth_error",
  CallbackRouteError: "callback_route_error",
  CredentialsSignin: "credentials_signin",
  EmailSignInError: "email_sign_in_error",
  ErrorPageLoop: "error_page_loop",
  EventError: "event_error",
  InvalidCallbackUrl: "invalid_callback_url",
  InvalidCheck: "invalid_check",
  InvalidEndpoints: "invalid_endpoints",
  InvalidProvider: "invalid_provider",
  JWTSessionError: "jwt_session_error",
  MissingAdapter: "missing_adapter",
  MissingAdapterMethods: "missing_adapter_methods",
  MissingAuthorize: "missing_authorize",
  MissingCSRF: "missing_csrf",
  MissingSecret: "missing_secret",
  OAuthAccountNotLinked: "oauth_account_not_linked",
  OAuthCallbackError: "oauth_callback_error",
  OAuthProfileParseError: "oauth_profile_parse_error",
  OAuthSignInError: "oauth_sign_in_error",
  SessionTokenError: "session_token_error",
  SignOutError: "sign_out_error",
  UnknownAction: "unknown_action",
  UntrustedHost: "untrusted_host",
  Verification: "verification",
  WebAuthnVerificationError: "webauthn_verification_error",
  InvalidConfig: "invalid_config",
  InvalidRequest: "invalid_request",
  OAuthProtocolError: "oauth_protocol_error",
  MissingRequestContext: "missing_request_context",
  NotFound: "not_found",
  SessionNotFresh: "session_not_fresh",
  LastCredential: "last_credential",
  RefreshTokenError: "refresh_token_error",
  RateLimited: "rate_limited",
  AccessTokenError: "access_token_error",
  NativeSignInError: "native_sign_in_error",
  TwoFactorRequired: "two_factor_required",
  TwoFactorInvalid: "two_factor_invalid",
  TwoFactorAlreadyEnabled: "two_factor_already_enabled",
  PasswordPolicy: "password_policy",
  InvalidEmail: "invalid_email",
  EmailNotVerified: "email_not_verified",
  PasswordIncorrect: "password_incorrect",
  PasswordNotSet: "password_not_set",
  PasswordAlreadySet: "password_already_set",
  SessionRequired: "session_required",
  AdminRequired: "admin_required",
  AdminTarget: "admin_target",
  InvalidTarget: "invalid_target",
  ImpersonationRestricted: "impersonation_restricted",
  AlreadyImpersonating: "already_impersonating",
  NotImpersonating: "not_impersonating",
  AccountBanned: "account_banned",
  AccountAlreadyLinked: "account_already_linked",
  EmailInUse: "email_in_use",
  InvalidRole: "invalid_role",
}

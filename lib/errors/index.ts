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

export type { AccessTokenErrorCode, AuthErrorCode, ErrorType } from "../error-codes"
export * from "./base"
export * from "./flow"
export * from "./config"
export * from "./sign-in"
export * from "./tokens"
export * from "./password"
export * from "./two-factor"
export * from "./account"
export * from "./admin"
export * from "./classify"

/**
 * `gatehouse/core`: the framework-neutral core. `Auth(request, config)` answers a Web Request with a Web Response.
 */
export { Auth, createAuthHandler, handleAuthRequest, handleAuthRequestSerialized, type LazyAuthConfig } from "./auth"
export { raw, skipCSRFCheck } from "./types"
export { customFetch } from "../providers/types"
export { setEnvDefaults, createActionURL, isAuthAction, authActions, type AuthAction } from "./config/env"
export { resolveConfig, resolveConfigCached, type ResolvedConfig } from "./config/resolve"
export { getSessionState, type SessionState } from "./session"
export type { ResponseInternal, AuthResult, SerializedResult } from "./response"
export type {
  Account,
  AuthConfig,
  AuthorizedRequest,
  Awaitable,
  CallbacksOptions,
  CookieOption,
  CookiesOptions,
  CookiesOverride,
  EventCallbacks,
  JWT,
  JWTOptions,
  PagesOptions,
  Profile,
  Session,
  SessionOptions,
  SessionStrategy,
  Theme,
  User,
} from "./types"
export type * from "../adapters/types"
export type * from "../providers/types"
export type { LoggerInstance, WarningCode } from "../logger"

/**
 * `gatehouse-auth/core`: the framework-neutral core. `Auth(request, config)` answers a Web Request with a Web Response.
 */
export {
  Auth,
  createAuthHandler,
  handleAuthRequest,
  handleAuthRequestSerialized,
  type LazyAuthConfig,
} from "./pipeline/auth"
export { raw, skipCSRFCheck, customFetch } from "../symbols"
export { setEnvDefaults, createActionURL } from "./kernel/config/env"
export { isAuthAction, authActions, providerActions, type AuthAction } from "./kernel/routes"
export { resolveConfig, resolveConfigCached } from "./kernel/config/resolve"
export type { ResolvedConfig } from "./kernel/config/types"
export { getSessionState, type SessionState } from "./session"
export type { ResponseInternal, AuthResult, SerializedResult } from "./kernel/response"
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
} from "./kernel/types"
export type * from "../storage/adapter"
export type * from "../providers/types"
export type { LoggerInstance, WarningCode } from "../logger"

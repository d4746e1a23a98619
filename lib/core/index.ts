/**
 * `gatehouse-auth/core`: the framework-neutral core. `Auth(request, config)` answers a Web Request with a Web Response.
 */
export { Auth, createAuthHandler, handleAuthRequest, handleAuthRequestSerialized, type LazyAuthConfig } from "./auth"
export { raw, skipCSRFCheck, customFetch } from "../symbols"
export { setEnvDefaults, createActionURL } from "./config/env"
export { isAuthAction, authActions, providerActions, type AuthAction } from "./routes"
export { resolveConfig, resolveConfigCached } from "./config/resolve"
export type { ResolvedConfig } from "./config/types"
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
export type * from "../storage/adapter"
export type * from "../providers/types"
export type { LoggerInstance, WarningCode } from "../logger"

/**
 * `gatehouse-auth/core`: the framework-neutral core. `Auth(request, config)` answers a Web Request with a Web Response.
 */
export { Auth, createAuthHandler, type LazyAuthConfig } from "./pipeline/auth"
export { createGatehouse, type Gatehouse, type GatehouseInput, type RequestPort } from "./pipeline/gatehouse"
export { raw, skipCSRFCheck, customFetch } from "../symbols"
export { setEnvDefaults } from "./kernel/config/env"
export { createActionURL } from "./kernel/action-url"
export { isAuthAction, type AuthAction } from "./kernel/routes"
export type { RawAuthError, ResponseInternal } from "./kernel/response"
export type {
  Account,
  AuthConfig,
  AuthorizedRequest,
  Awaitable,
  CallbacksOptions,
  ClientIpSource,
  CookieOption,
  CookiesOptions,
  CookiesOverride,
  EventCallbacks,
  JWT,
  JWTOptions,
  PagesOptions,
  Profile,
  RateLimitOptions,
  RateLimitRule,
  RateLimitRuleName,
  Session,
  SessionOptions,
  SessionStrategy,
  Theme,
  TwoFactorOptions,
  TwoFactorUsed,
  User,
} from "./kernel/types"
export type * from "../storage/adapter"
export type * from "../providers/types"
export type { LoggerInstance, WarningCode } from "../logger"

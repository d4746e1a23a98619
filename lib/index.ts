/**
 * `gatehouse-auth`: authentication for Express. `Gatehouse(config)` (also the default export) returns `handlers` to
 * mount, `auth`, and server-side `signIn`, `signOut` and `unstable_update`. The lower-level `ExpressAuth(config)`,
 * `requireAuth(config)` and `getSession(req, config)` share the same state for the same config object.
 */
import { Gatehouse } from "./express"

export * from "./express"
export default Gatehouse
export {
  AuthError,
  CredentialsSignin,
  MissingCSRF,
  MissingRequestContext,
  RateLimited,
  RefreshTokenError,
} from "./errors"
export type { AccessTokenResult, GetAccessTokenOptions } from "./core/session/refresh"
export { customFetch } from "./symbols"
export type {
  Account,
  AuthConfig,
  CallbacksOptions,
  EventCallbacks,
  JWT,
  PagesOptions,
  Profile,
  ClientIpSource,
  RateLimitOptions,
  RateLimitRule,
  RateLimitRuleName,
  Session,
  SessionOptions,
  Theme,
  TwoFactorOptions,
  TwoFactorUsed,
  User,
} from "./core/kernel/types"
export type { RateLimitStore, WindowHit } from "./storage/kv"
export type * from "./storage/adapter"
export type * from "./providers/types"

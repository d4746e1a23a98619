/**
 * `gatehouse-auth/web`: the Fetch flavour of `Gatehouse(config)`, for runtimes that speak Web `Request`/`Response`
 * (Hono, `node:http`, Bun, Deno, file-routed frameworks).
 */
export {
  Gatehouse,
  type WebGatehouse,
  type WebAuth,
  type WebHandler,
  type WebConfigInput,
  type SignInOptions,
  type SignOutOptions,
  type AuthorizationParams,
} from "./gatehouse"
export { Gatehouse as default } from "./gatehouse"
export {
  AuthError,
  CredentialsSignin,
  MissingCSRF,
  MissingRequestContext,
  RateLimited,
  RefreshTokenError,
} from "../errors"
export type { AccessTokenResult, GetAccessTokenOptions } from "../core/session/refresh"
export type { AuthConfig, ClientIpSource, RateLimitOptions, Session, User } from "../core/kernel/types"

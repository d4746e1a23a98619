/**
 * `gatehouse-auth/web`: the Fetch flavour of `Gatehouse(config)`, for runtimes that speak Web `Request`/`Response`
 * (Hono, `node:http`, Bun, Deno, file-routed frameworks).
 */
export { Gatehouse } from "./gatehouse"
export type {
  WebGatehouse,
  WebAuth,
  WebHandler,
  WebConfigInput,
  SignInOptions,
  SignOutOptions,
  AuthorizationParams,
} from "./types"
export { Gatehouse as default } from "./gatehouse"
export {
  AuthError,
  CredentialsSignin,
  MissingCSRF,
  MissingRequestContext,
  RateLimited,
  RefreshTokenError,
} from "../errors"
export type { AccessTokenResult, GetAccessTokenOptions } from "../core/pipeline/gatehouse"
export type { AuthConfig, ClientIpSource, RateLimitOptions, Session, User } from "../core"

/**
 * `gatehouse`: authentication for Express. Mount `ExpressAuth(config)`, protect routes with `requireAuth(config)`,
 * read the session with `getSession(req, config)`.
 */
export * from "./express"
export { AuthError, CredentialsSignin } from "./errors"
export { customFetch } from "./providers/types"
export type {
  Account,
  AuthConfig,
  CallbacksOptions,
  EventCallbacks,
  JWT,
  PagesOptions,
  Profile,
  Session,
  SessionOptions,
  Theme,
  User,
} from "./core/types"
export type * from "./adapters/types"
export type * from "./providers/types"

/** The public types of the Fetch flavour of `Gatehouse(config)` (`gatehouse-auth/web`). */
import type { AuthConfig, Awaitable, Session } from "../core"
import type {
  AccountMembers,
  ServerOnlyAccountMember,
  AccessTokenRequest,
  AccessTokenResult,
  AuthorizationParams,
  IssuedAccessToken,
  GetAccessTokenOptions,
  PasskeyInfo,
  SessionInfo,
  SignInOptions,
  SignOutOptions,
  TotpEnrolment,
  TwoFactorMembers,
  TwoFactorStatus,
} from "../core/pipeline/gatehouse"
import type { AdapterUser } from "../storage/adapter"
import type { PasswordServerFunctions } from "../password/types"

export type { PasswordServerFunctions, PasswordServerInputs } from "../password/types"

export type { AuthorizationParams, PasskeyInfo, SessionInfo, SignInOptions, SignOutOptions }

/** A config, or a function of the request returning one (called per request; cached by returned object). */
export type WebConfigInput = AuthConfig | ((request: Request | undefined) => Awaitable<AuthConfig>)

/** A handler `auth(handler)` wraps: it sees the session read for the request. */
export type WebHandler<A extends unknown[] = unknown[]> = (
  request: Request & { auth: Session | null },
  ...rest: A
) => Awaitable<Response | null | undefined | void>

export interface WebAuth {
  /** The session of the current request, inside `runWithRequest(request, fn)`. */
  (): Promise<Session | null>
  /** Reads the session (memoised per request); a refreshed cookie is queued for `applyCookies(request, response)`. */
  (request: Request): Promise<Session | null>
  /** Wraps a handler: session read, `authorized` applied (a denial means the handler is not called), cookies applied. */
  <A extends unknown[]>(handler: WebHandler<A>): (request: Request, ...rest: A) => Promise<Response>
}

/** The session-management members of the Fetch initializer (as in the Express flavour, with a `Request`). */
export interface WebSessionManagement {
  listSessions(request: Request): Promise<SessionInfo[] | null>
  revokeSession(request: Request, id: string): Promise<boolean>
  revokeOtherSessions(request: Request): Promise<boolean>
  revokeAllSessions(request: Request): Promise<boolean>
  revokeUserSessions(userId: string): Promise<number>
  deleteUser(userId: string): Promise<AdapterUser | null>
  isSessionFresh(request: Request): Promise<boolean>
  /**
   * The provider access token of the request's session, refreshed when due; `null` without a session.
   * A re-issued session cookie is queued for `applyCookies`. Throws `RefreshTokenError` (`cause.reason`).
   */
  getAccessToken(
    request: Request,
    provider?: string,
    options?: GetAccessTokenOptions,
  ): Promise<AccessTokenResult | null>
  /** An access token for other services (tokens.md T3), or `null` without a session. */
  issueAccessToken(request: Request, input?: AccessTokenRequest): Promise<IssuedAccessToken | null>
  /** Rotates the generated access-token signing keys now (tokens.md T3.4). */
  rotateAccessTokenKeys(): Promise<{ kid: string; previousKid: string | null }>
}

/**
 * The core's members `M` in the Fetch shape: each takes `(request, ...input)` where the core's takes
 * `(port, ...input)`, with the same input and result. The members named in `ServerOnly` take no request and stay as
 * they are.
 */
type WebMembers<M, ServerOnly extends keyof M = never> = {
  [K in keyof M]: K extends ServerOnly
    ? M[K]
    : M[K] extends (port: never, ...rest: infer A) => infer R
      ? (request: Request, ...rest: A) => R
      : never
}

/** The two-factor members of the Fetch initializer (as in the Express flavour, with a `Request`). */
export type WebTwoFactor = WebMembers<TwoFactorMembers<unknown>>

export type { TotpEnrolment, TwoFactorStatus }

/**
 * Account self-service, administration and the audit trail (accounts.md), Fetch flavour: each member takes
 * `(request, ...input)`; `pruneAuditEvents()` takes no request.
 */
export type WebAccountMembers = WebMembers<AccountMembers, ServerOnlyAccountMember>

/** What `Gatehouse(config)` from `gatehouse-auth/web` returns. */
export interface WebGatehouse
  extends WebSessionManagement, WebTwoFactor, PasswordServerFunctions<[request: Request]>, WebAccountMembers {
  handlers: { GET(request: Request): Promise<Response>; POST(request: Request): Promise<Response> }
  /** Answers a request under the base path; `undefined` for any other path (let the app answer it). */
  handle(request: Request): Promise<Response | undefined>
  auth: WebAuth
  /** Returns `response` with the cookies queued for `request` (a refreshed or updated session) appended. */
  applyCookies(request: Request, response: Response): Response
  signIn(
    request: Request,
    provider?: string,
    options?: SignInOptions,
    authorizationParams?: AuthorizationParams,
  ): Promise<Response>
  signOut(request: Request, options?: SignOutOptions): Promise<Response>
  unstable_update(request: Request, data: Partial<Session> | Record<string, unknown>): Promise<Session | null>
  /** Alias of `unstable_update`. */
  updateSession(request: Request, data: Partial<Session> | Record<string, unknown>): Promise<Session | null>
  /** Runs `fn` with `request` as the current request, so `auth()` works inside it. */
  runWithRequest<T>(request: Request, fn: () => T): T
  /** The signed-in user's passkeys (never a public key or counter); `null` without a session. */
  listAuthenticators(request: Request): Promise<PasskeyInfo[] | null>
  /** Server-only: forgets the `credentials-account` counters of an email address or user name (password reset). */
  resetRateLimit(options: { identifier: string }): Promise<void>
  /** Renames one of the user's passkeys (trimmed, 1-64 characters); a foreign id throws `NotFound` (status 404). */
  renameAuthenticator(request: Request, id: string, name: string): Promise<PasskeyInfo>
  /** Deletes one of the user's passkeys; throws `NotFound` (404), `SessionNotFresh` (403) or `LastCredential` (409). */
  deleteAuthenticator(request: Request, id: string): Promise<void>
}

/** The public types of the Express flavour of `Gatehouse(config)`. */
import type { NextFunction, Request, RequestHandler, Response as ExpressResponse } from "express"
import type { AuthConfig, Awaitable, Session } from "../core"
import type {
  AccountMembers,
  ServerOnlyAccountMember,
  AccessOptions,
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

export type { AccessTokenResult, AuthorizationParams, GetAccessTokenOptions, PasskeyInfo, SessionInfo }
export type { SignInOptions, SignOutOptions, AccessTokenRequest, IssuedAccessToken, TotpEnrolment, TwoFactorStatus }

/** A config, or a function of the Express request returning one (called per request; cached by returned object). */
export type ExpressConfigInput = AuthConfig | ((req: Request | undefined) => Awaitable<AuthConfig>)

/** Options of the Express flavour beyond the core config. */
export interface ExpressAuthOptions {
  /** Largest request body read from the stream, in bytes. Default 102400. */
  bodyLimit?: number
}

/** `requireAuth`'s options: the deny rule's plus an extra check of an authenticated request. */
export interface GateOptions extends AccessOptions {
  /** Extra check on an authenticated request; `false` answers 403. */
  authorize?: (session: Session, req: Request) => boolean | Promise<boolean>
}

/** A request as `auth(handler)` hands it over: the session read for it is on `req.auth`. */
export type AuthenticatedHandler = (
  req: Request & { auth: Session | null },
  res: ExpressResponse,
  next: NextFunction,
) => unknown

/** A request behind `requireAuth`: it has a signed-in user, so `req.user` and `req.auth` are never `undefined`. */
export type SignedInRequest = Request & { user: NonNullable<Request["user"]>; auth: Session }

/**
 * A route handler given to `requireAuth(handler)` or `requireAuth(options, handler)`: it runs only for a signed-in
 * request, and its `req.user` is typed as present (no `!` or `?.`).
 */
export type SignedInHandler = (req: SignedInRequest, res: ExpressResponse, next: NextFunction) => unknown

/** `handlers`: Express middleware serving every auth action under its mount path, plus a Fetch entry point. */
export type GatehouseHandlers = RequestHandler & {
  /** Answers a Web `Request` under the base path (`config.basePath`, else the recorded mount, else `/auth`). */
  fetch(request: Request | globalThis.Request): Promise<globalThis.Response>
}

/** `auth`: one function whose behaviour is chosen by its arguments (see the README's table). */
export interface GatehouseAuth {
  /** The session of the current request, inside the context `app.use(auth)` or `handlers` opened. */
  (): Promise<Session | null>
  /** Wraps a route handler: session read, `authorized` applied (a denial means the handler is not called). */
  (handler: AuthenticatedHandler): RequestHandler
  /** Middleware: attaches the session, opens the request context, applies `authorized`. */
  (req: Request, res: ExpressResponse, next: NextFunction): void
  /** Reads the session (memoised per request); a refreshed cookie is written to `res` (or `req.res`). */
  (req: Request, res?: ExpressResponse): Promise<Session | null>
}

export interface GatehouseSignIn {
  (
    req: Request,
    res: ExpressResponse,
    provider?: string,
    options?: SignInOptions,
    authorizationParams?: AuthorizationParams,
  ): Promise<string>
  (provider?: string, options?: SignInOptions, authorizationParams?: AuthorizationParams): Promise<string>
}

export interface GatehouseSignOut {
  (req: Request, res: ExpressResponse, options?: SignOutOptions): Promise<string>
  (options?: SignOutOptions): Promise<string>
}

export interface GatehouseUpdate {
  (req: Request, res: ExpressResponse, data: Partial<Session> | Record<string, unknown>): Promise<Session | null>
  (data: Partial<Session> | Record<string, unknown>): Promise<Session | null>
}

/** The session-management members of the Express initializer. */
export interface SessionManagement {
  /** The request user's sessions, newest first (at most 100; no tokens), or null without a session. */
  listSessions(req: Request, res?: ExpressResponse): Promise<SessionInfo[] | null>
  /** Ends one of the request user's sessions by id: false when it is not theirs or not found (nothing changes). */
  revokeSession(req: Request, res: ExpressResponse, id: string): Promise<boolean>
  /** "Sign out other devices": every session of the request user but this one. False without a session. */
  revokeOtherSessions(req: Request, res: ExpressResponse): Promise<boolean>
  /** "Sign out everywhere": every session of the request user, this one included (its cookie is cleared). */
  revokeAllSessions(req: Request, res: ExpressResponse): Promise<boolean>
  /** Ends every session of a user (admin, password change): rows deleted, JWTs refused from their next request. */
  revokeUserSessions(userId: string): Promise<number>
  /** Deletes a user through the adapter, after revoking all their sessions. */
  deleteUser(userId: string): Promise<AdapterUser | null>
  /** Whether the request's session began within `session.freshAge` seconds (default 900). */
  isSessionFresh(req: Request): Promise<boolean>
  /**
   * The provider access token of the request's session, refreshed when due; `null` without a session.
   * A re-issued session cookie is written to `res`. Throws `RefreshTokenError` (`cause.reason`).
   */
  getAccessToken(
    req: Request,
    res: ExpressResponse,
    provider?: string,
    options?: GetAccessTokenOptions,
  ): Promise<AccessTokenResult | null>
  /**
   * An access token for other services (tokens.md T3): `{access_token, token_type, expires_in, scope?}`, or `null`
   * without a session. Throws `InvalidRequest` (`invalid_target`, `invalid_scope`) or `AccessDenied`.
   */
  issueAccessToken(req: Request, res: ExpressResponse, input?: AccessTokenRequest): Promise<IssuedAccessToken | null>
  /** Rotates the generated access-token signing keys now (tokens.md T3.4). */
  rotateAccessTokenKeys(): Promise<{ kid: string; previousKid: string | null }>
}

/**
 * The core's members `M` in Express's shape: each takes `(req, res, ...input)` where the core's takes
 * `(port, ...input)`, with the same input and result. The members named in `ServerOnly` take no request and stay as
 * they are; those named in `ResOptional` are reads whose `res` may be left out.
 */
type ExpressMembers<M, ServerOnly extends keyof M = never, ResOptional extends keyof M = never> = {
  [K in keyof M]: K extends ServerOnly
    ? M[K]
    : M[K] extends (port: never, ...rest: infer A) => infer R
      ? K extends ResOptional
        ? (req: Request, res?: ExpressResponse, ...rest: A) => R
        : (req: Request, res: ExpressResponse, ...rest: A) => R
      : never
}

/** The two-factor members (README "Two-factor sign-in"); every one throws `InvalidConfig` without `twoFactor`. */
export type ExpressTwoFactor = ExpressMembers<TwoFactorMembers<unknown>, never, "twoFactorStatus">

/**
 * Account self-service, administration and the audit trail (accounts.md), Express flavour: each member takes
 * `(req, res, ...input)`; `pruneAuditEvents()` takes no request.
 */
export type ExpressAccountMembers = ExpressMembers<AccountMembers, ServerOnlyAccountMember>

/** What `Gatehouse(config)` returns (Express flavour). */
export interface GatehouseInstance
  extends
    SessionManagement,
    ExpressTwoFactor,
    PasswordServerFunctions<[req: Request, res: ExpressResponse]>,
    ExpressAccountMembers {
  handlers: GatehouseHandlers
  auth: GatehouseAuth
  signIn: GatehouseSignIn
  signOut: GatehouseSignOut
  unstable_update: GatehouseUpdate
  /** Alias of `unstable_update`. */
  updateSession: GatehouseUpdate
  /** Route protection: 401 JSON for API clients, 302 to sign-in for browsers, 403 when `authorize` says no. */
  requireAuth(options?: Omit<GateOptions, "requireSession">): RequestHandler
  /**
   * Route protection around a handler that sees the signed-in user: `requireAuth((req, res) => res.json(req.user))`
   * types `req.user` as `User` (not `User | undefined`).
   */
  requireAuth(handler: SignedInHandler): RequestHandler
  requireAuth(options: Omit<GateOptions, "requireSession">, handler: SignedInHandler): RequestHandler
  /** The signed-in user's passkeys (never a public key or counter); `null` without a session. */
  listAuthenticators(req: Request): Promise<PasskeyInfo[] | null>
  /** Renames one of the user's passkeys (trimmed, 1-64 characters); a foreign id throws `NotFound` (status 404). */
  renameAuthenticator(req: Request, res: ExpressResponse, id: string, name: string): Promise<PasskeyInfo>
  /**
   * Deletes one of the user's passkeys and its account row. Throws `NotFound` (404), `SessionNotFresh` (403, sign-in
   * older than `session.freshAge`) or `LastCredential` (409).
   */
  deleteAuthenticator(req: Request, res: ExpressResponse, id: string): Promise<void>
  /**
   * Server-only: forgets the `credentials-account` counters (15-minute window and 24-hour cap) of an email address or
   * user name, e.g. from your password-reset flow, so its owner can sign in again at once.
   */
  resetRateLimit(options: { identifier: string }): Promise<void>
}

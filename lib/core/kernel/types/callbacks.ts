/** The `callbacks` option: the hooks that decide or shape the flow, and what each receives. */
import type { AdapterUser } from "../../../storage/adapter"
import type { CredentialInput } from "../../../providers/types"
import type { Account, Awaitable, JWT, Profile, Session, User } from "../../../models"

/** The `session` callback's parameter with JWT sessions: the decoded token (after the `jwt` callback). */
export interface JwtSessionCallbackParams {
  session: { user: User; expires: string }
  token: JWT
  user?: never
}

/** The `session` callback's parameter with database sessions: the stored session and its user. */
export interface DatabaseSessionCallbackParams {
  /** The stored session without its token or user id (never exposed to page scripts through GET /session). */
  session: { user: AdapterUser; expires: Date }
  user: AdapterUser
  /** The `data` of a POST /session update. */
  newSession?: unknown
  trigger?: "update"
  token?: never
}

/** What the `session` callback really receives: `token` with JWT sessions, `user` with database sessions. */
export type SessionCallbackParams = JwtSessionCallbackParams | DatabaseSessionCallbackParams

/**
 * The `session` callback's declared parameter: Auth.js's single bag, so a callback written for Auth.js (`token.sub`)
 * compiles unchanged. Only half of it is present for a given strategy (see {@link SessionCallbackParams}); annotate
 * your parameter with `JwtSessionCallbackParams` or `DatabaseSessionCallbackParams` for the precise type.
 */
export interface SessionCallbackBag {
  session: { user: User | AdapterUser; expires: string | Date }
  /** JWT sessions only. */
  token: JWT
  /** Database sessions only. */
  user: AdapterUser
  newSession?: unknown
  trigger?: "update"
}

export interface CallbacksOptions {
  signIn: (params: {
    user: User | AdapterUser
    account: Account | null
    profile?: Profile
    credentials?: Record<string, CredentialInput | unknown>
    email?: { verificationRequest?: boolean }
  }) => Awaitable<boolean | string>
  redirect: (params: { url: string; baseUrl: string }) => Awaitable<string>
  /** Shapes the session the browser and handlers see; what the parameter holds depends on the strategy. */
  session: (
    params: SessionCallbackBag,
  ) => Awaitable<Session | DatabaseSessionCallbackParams["session"] | Record<string, unknown>>
  jwt: (params: {
    token: JWT
    /** Present at sign-in (`trigger` "signIn"/"signUp") only. */
    user?: User | AdapterUser
    /** Present at sign-in only. */
    account?: Account | null
    profile?: Profile
    trigger?: "signIn" | "signUp" | "update"
    isNewUser?: boolean
    session?: unknown
  }) => Awaitable<JWT | null>
  /**
   * Used by `app.use(auth)`, `auth(handler)` and `requireAuth()`: decides whether a request may pass. A truthy answer
   * lets it through; any falsy one (`false`, `null`, `undefined`, no return) denies (401, a redirect to sign-in, or
   * 403 when signed in); a returned `Response` is sent as it is. `request.nextUrl.pathname` is the path as the app
   * routes it (see `AuthorizedRequest`).
   */
  authorized: (params: {
    auth: Session | null
    request: AuthorizedRequest
  }) => Awaitable<boolean | Response | undefined | void>
}

/** The request as the `authorized` callback sees it. */
export interface AuthorizedRequest {
  /** Absolute URL of the request, with the path as the client spelled it. */
  url: string
  /**
   * The URL with the path the app routes: percent-encoded unreserved characters decoded, and with Express, folded
   * by the app's routing settings (lower-cased unless `case sensitive routing`; one trailing slash dropped unless
   * `strict routing`). Decide on this one: `/ADMIN/` and `/%61dmin` reach `app.get("/admin")`'s rule as `/admin`.
   */
  nextUrl: URL
  method: string
  headers: Headers
  /** The framework's own request object, when there is one (the Express `req`). */
  req?: unknown
}

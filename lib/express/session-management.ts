/**
 * The session-management members of `Gatehouse(config)` (Express flavour): list and revoke the request user's
 * sessions, revoke every session of a user, delete a user, and check freshness.
 */
import type { Request, Response as ExpressResponse } from "express"
import type { AdapterUser } from "../storage/adapter"
import type { ResolvedConfig } from "../core/kernel/config/resolve"
import { serverSessionContext } from "../core/session"
import {
  deleteUser,
  isSessionFresh,
  listSessions,
  revokeAllSessions,
  revokeOtherSessions,
  revokeSession,
  revokeUserSessions,
  type SessionInfo,
} from "../core/session/manage"
import type { SessionContext } from "../core/session/types"
import {
  getAccessToken,
  type AccessTokenResult,
  type GetAccessTokenOptions,
  type RefreshState,
} from "../core/session/refresh"
import type { Identity } from "./identity"
import { isSecureRequest } from "./origin"

export type { AccessTokenResult, GetAccessTokenOptions, SessionInfo }

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
}

type WriteCookies = (res: ExpressResponse, cookies: string[], resolved: ResolvedConfig) => void

/**
 * Builds the members over one identity authority; `write` appends `Set-Cookie` values to the response.
 *
 * @example
 * ```ts
 * const members = createSessionManagement(identity, appendCookies)
 * await members.revokeOtherSessions(req, res)
 * ```
 */
export function createSessionManagement(identity: Identity, write: WriteCookies): SessionManagement {
  const withContext = async <T>(
    req: Request,
    res: ExpressResponse | undefined,
    run: (ctx: SessionContext, refresh: RefreshState) => Promise<T>,
  ): Promise<T> => {
    const runtime = await identity.runtime(req)
    const resolved = identity.resolved(runtime)
    const ctx = serverSessionContext(
      resolved,
      {
        secure: isSecureRequest(req, resolved.authUrl),
        cookie: req.headers.cookie,
        userAgent: req.headers["user-agent"],
      },
      { sessionCache: runtime.sessionCache },
    )
    try {
      return await run(ctx, runtime.refresh)
    } finally {
      const target = res ?? req.res
      if (target) write(target, ctx.jar.toHeaders(), resolved)
    }
  }
  const serverConfig = async (): Promise<ResolvedConfig> =>
    identity.resolved(await identity.runtime(undefined as unknown as Request))

  return {
    listSessions: (req, res) => withContext(req, res, listSessions),
    revokeSession: (req, res, id) =>
      withContext(req, res, async (ctx) => (await revokeSession(ctx, String(id))) === "revoked"),
    revokeOtherSessions: (req, res) =>
      withContext(req, res, async (ctx) => (await revokeOtherSessions(ctx)) === "revoked"),
    revokeAllSessions: (req, res) => withContext(req, res, async (ctx) => (await revokeAllSessions(ctx)) === "revoked"),
    revokeUserSessions: async (userId) => revokeUserSessions(await serverConfig(), userId),
    deleteUser: async (userId) => deleteUser(await serverConfig(), userId),
    isSessionFresh: (req) => withContext(req, undefined, isSessionFresh),
    getAccessToken: (req, res, provider, options) =>
      withContext(req, res, (ctx, refresh) => getAccessToken(ctx, refresh, provider, options)),
  }
}

/** The session-management members of `Gatehouse(config)` (Fetch flavour); cookies they set go out with `applyCookies`. */
import type { AdapterUser } from "../storage/adapter"
import type { ConfigRuntime } from "../core/pipeline/gatehouse"
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
}

/**
 * Builds the members over the initializer's runtimes; `queue` keeps the `Set-Cookie` values for `applyCookies`.
 *
 * @example
 * ```ts
 * const members = createWebSessionManagement(runtimeFor, queue)
 * ```
 */
export function createWebSessionManagement(
  runtimeFor: (request: Request | undefined) => Promise<ConfigRuntime>,
  queue: (request: Request, cookies: string[]) => void,
): WebSessionManagement {
  const withContext = async <T>(
    request: Request,
    run: (ctx: SessionContext, refresh: RefreshState) => Promise<T>,
  ): Promise<T> => {
    const runtime = await runtimeFor(request)
    const { resolved } = runtime
    const ctx = serverSessionContext(
      resolved,
      {
        secure: (resolved.authUrl ?? new URL(request.url)).protocol === "https:",
        cookie: request.headers.get("cookie"),
        userAgent: request.headers.get("user-agent"),
      },
      { sessionCache: runtime.sessionCache },
    )
    try {
      return await run(ctx, runtime.refresh)
    } finally {
      queue(request, ctx.jar.toHeaders())
    }
  }
  return {
    listSessions: (request) => withContext(request, listSessions),
    revokeSession: (request, id) =>
      withContext(request, async (ctx) => (await revokeSession(ctx, String(id))) === "revoked"),
    revokeOtherSessions: (request) =>
      withContext(request, async (ctx) => (await revokeOtherSessions(ctx)) === "revoked"),
    revokeAllSessions: (request) => withContext(request, async (ctx) => (await revokeAllSessions(ctx)) === "revoked"),
    revokeUserSessions: async (userId) => revokeUserSessions((await runtimeFor(undefined)).resolved, userId),
    deleteUser: async (userId) => deleteUser((await runtimeFor(undefined)).resolved, userId),
    isSessionFresh: (request) => withContext(request, isSessionFresh),
    getAccessToken: (request, provider, options) =>
      withContext(request, (ctx, refresh) => getAccessToken(ctx, refresh, provider, options)),
  }
}

/** The optional session routes (`features.sessionRoutes`): GET <base>/sessions, POST <base>/sessions/revoke. */
import { UnknownAction } from "../../errors"
import type { RequestContext } from "../kernel/context"
import { jsonHeaders, noCacheHeaders, type AuthResult } from "../kernel/response"
import { listSessions, revokeAllSessions, revokeOtherSessions, revokeSession } from "./manage"
import { sessionContext } from "./context"

const json = (status: number, body: unknown): AuthResult => ({
  status,
  headers: { ...jsonHeaders, ...noCacheHeaders },
  body,
})

/**
 * Answers the session routes: the list (200 JSON, `null` without a session), or a revocation (CSRF-checked by the router: 403 `{"error":"MissingCSRF"}`) of `id`,
 * `"others"` or `"all"`, answering 200 `{"ok":true}`, 404 `{"error":"NotFound"}` (not the user's, or unknown) or
 * 401 `{"error":"Unauthorized"}` without a session.
 *
 * @example
 * ```ts
 * const result = await sessionsAction(ctx)
 * ```
 */
export async function sessionsAction(ctx: RequestContext): Promise<AuthResult> {
  const sub = ctx.request.providerId
  const sctx = sessionContext(ctx)
  if (ctx.request.method === "GET") {
    if (sub !== undefined) throw new UnknownAction("Cannot handle action: sessions")
    return json(200, await listSessions(sctx))
  }
  if (sub !== "revoke") throw new UnknownAction("Cannot handle action: sessions")
  const id = ctx.request.body?.id
  if (typeof id !== "string" || id.length === 0 || id.length > 64) return json(404, { error: "NotFound" })
  const outcome =
    id === "others"
      ? await revokeOtherSessions(sctx)
      : id === "all"
        ? await revokeAllSessions(sctx)
        : await revokeSession(sctx, id)
  if (outcome === "unauthenticated") return json(401, { error: "Unauthorized" })
  if (outcome === "not-found") return json(404, { error: "NotFound" })
  return json(200, { ok: true })
}

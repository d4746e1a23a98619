/**
 * The admin routes (`features.adminRoutes`, accounts.md §3.6). The router checks CSRF first; then, before any lookup
 * or input check: no session (401), an impersonation session (403), not an admin (403).
 */
import { AuthError, SessionRequired, UnknownAction } from "../../../errors"
import type { RequestContext } from "../../kernel/context"
import { jsonHeaders, noCacheHeaders, type AuthResult } from "../../kernel/response"
import { sessionContext } from "../../session/context"
import { listAuditEvents } from "./admin-audit"
import { impersonate, stopImpersonating } from "./admin-impersonate"
import { adminRevokeSessions, banUser, getUserDetail, listUsers, setRole, unbanUser } from "./admin-users"

const json = (status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): AuthResult => ({
  status,
  headers: { ...jsonHeaders, ...noCacheHeaders, ...headers },
  body,
})

/** A numeric query parameter (digits only), passed on as a number; anything else stays a string (and is refused). */
const queryNumber = (value: unknown): unknown =>
  typeof value === "string" && /^[0-9]{1,4}$/.test(value) ? Number(value) : value

async function answer(ctx: RequestContext): Promise<AuthResult> {
  const sctx = sessionContext(ctx)
  const sub = ctx.request.providerId
  const q = ctx.request.query as Record<string, unknown>
  const body = (ctx.request.body ?? {}) as Record<string, unknown>
  if (ctx.request.method === "GET") {
    if (sub === "users") {
      return json(200, await listUsers(sctx, { search: q.search, limit: queryNumber(q.limit), cursor: q.cursor }))
    }
    if (sub === "user") return json(200, await getUserDetail(sctx, q.id))
    if (sub === "audit") {
      return json(
        200,
        await listAuditEvents(sctx, { userId: q.userId, type: q.type, limit: queryNumber(q.limit), cursor: q.cursor }),
      )
    }
    throw new UnknownAction("Cannot handle action: admin")
  }
  switch (sub) {
    case "ban":
      return json(200, await banUser(sctx, body.id, { reason: body.reason, expiresAt: body.expiresAt }))
    case "unban":
      return json(200, await unbanUser(sctx, body.id))
    case "role":
      return json(200, await setRole(sctx, body.id, body.role === undefined ? "" : body.role))
    case "revoke-sessions":
      return json(200, { ok: true, ...(await adminRevokeSessions(sctx, body.id)) })
    case "impersonate":
      return json(200, { ok: true, session: await impersonate(sctx, body.id) })
    case "stop-impersonating":
      return json(200, { ok: true, session: await stopImpersonating(sctx) })
  }
  throw new UnknownAction("Cannot handle action: admin")
}

/**
 * Answers `<base>/admin/<sub>`.
 *
 * @example
 * ```ts
 * const result = await adminAction(ctx)
 * ```
 */
export async function adminAction(ctx: RequestContext): Promise<AuthResult> {
  try {
    return await answer(ctx)
  } catch (error) {
    if (error instanceof SessionRequired) return json(401, { error: "Unauthorized" })
    if (error instanceof AuthError && error.status !== undefined && !(error instanceof UnknownAction)) {
      return json(error.status, { error: error.type }, error.headers)
    }
    throw error
  }
}

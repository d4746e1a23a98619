/** The user's own "recent activity" feed (accounts.md §4.3): their audit events, newest first, without admin ids. */
import { InvalidRequest } from "../../../errors"
import { listMyAudit } from "../../kernel/audit"
import type { MyAuditEvent } from "../../kernel/audit"
import { currentPrincipal } from "../../session/principal"
import type { SessionContext } from "../../session/types"

/**
 * The session user's audit events (`limit` 1–50, default 20), or `null` without a session. A session whose user has
 * no id (a credentials user without one) has no events.
 *
 * @example
 * ```ts
 * const feed = await listMyAuditEvents(ctx, { limit: 10 }) // { events: [{ type: "signin", byAdmin: false, … }] }
 * ```
 */
export async function listMyAuditEvents(
  ctx: SessionContext,
  input: unknown = {},
): Promise<{ events: MyAuditEvent[] } | null> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new InvalidRequest("The input must be an object", { cause: { field: "input" } })
  }
  const { limit } = input as { limit?: unknown }
  const door = await currentPrincipal(ctx)
  if (!door.ok) return null
  const userId = door.principal.userId
  if (userId === undefined) return { events: [] }
  return { events: await listMyAudit(ctx.config.audit.store, userId, limit) }
}

/** The admin's audit listing (accounts.md §4.3): newest first, filtered by user and type, walked with a cursor. */
import { listAudit } from "../../kernel/audit"
import type { AuditEvent, AuditListInput } from "../../kernel/audit"
import type { SessionContext } from "../../session/types"
import { requireAdmin } from "./admin-guard"

/**
 * One page of audit events (`limit` 1–200, default 50).
 *
 * @example
 * ```ts
 * const { events, nextCursor } = await listAuditEvents(ctx, { userId: "u-1", type: "signin" })
 * ```
 */
export async function listAuditEvents(
  ctx: SessionContext,
  input: AuditListInput = {},
): Promise<{ events: AuditEvent[]; nextCursor: string | null }> {
  await requireAdmin(ctx, "listAuditEvents")
  return listAudit(ctx.config.audit.store, input)
}

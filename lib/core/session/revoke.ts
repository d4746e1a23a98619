/**
 * Ending sessions for someone other than the request (server code, an admin, a ban, a deletion): the rows, the JWT
 * watermark `sess-nbf:<h(userId)>`, and the audit event of each revocation (`session.revoked`, accounts.md 4.2).
 */
import type { AdapterSession, AdapterUser } from "../../storage/adapter"
import { MissingAdapterMethods } from "../../errors"
import { recordAudit } from "../kernel/audit"
import type { AuditSource, RevocationReason } from "../kernel/audit"
import { need } from "../kernel/config/stores"
import type { ResolvedConfig } from "../kernel/config/types"
import { sessionWatermarkKey } from "./claims"
import { revokeTrust } from "./two-factor/trust"

/** Deletes rows one by one, firing `events.signOut` for each that was still there; returns how many went. */
export async function deleteRows(config: ResolvedConfig, rows: AdapterSession[]): Promise<number> {
  const adapter = { deleteSession: need(config.stores.management?.deleteSession, "deleteSession") }
  let count = 0
  for (const row of rows) {
    const deleted = await adapter.deleteSession(row.sessionToken)
    if (!deleted) continue
    count++
    await config.events.signOut({ session: deleted, reason: "revoked" })
  }
  return count
}

/** Raises the user's watermark to `at` (ms) for as long as a session can live. */
export async function raiseWatermark(config: ResolvedConfig, userId: string, at: number): Promise<void> {
  await config.store.setMax(sessionWatermarkKey(userId), at, config.session.maxAge)
}

/** Why and by whom a user's sessions are revoked, for the audit trail (default: `admin`, no actor, no request). */
export interface RevokeAudit {
  reason?: RevocationReason
  actorId?: string | null
  /** The request the act came from (its user agent and IP), when there is one. */
  source?: AuditSource
}

/**
 * Ends every session of a user, from server code (an admin, a password change): deletes the database rows (when
 * there is an adapter) and raises the user's watermark, which ends their JWT sessions on their next request. Writes
 * the audit event `session.revoked` with the reason and the count. Resolves to the number of rows deleted.
 *
 * @example
 * ```ts
 * await revokeUserSessions(config, user.id, { reason: "ban", actorId: admin.id })
 * ```
 */
export async function revokeUserSessions(
  config: ResolvedConfig,
  userId: string,
  audit: RevokeAudit = {},
): Promise<number> {
  await raiseWatermark(config, userId, Date.now() + 1)
  await revokeTrust(config, userId)
  const adapter = config.stores.management
  let count = 0
  if (typeof adapter?.deleteSessions === "function") count = await adapter.deleteSessions({ userId })
  else if (typeof adapter?.listSessionsByUserId === "function") {
    count = await deleteRows(config, await adapter.listSessionsByUserId(userId))
  }
  await recordAudit(audit.source ?? { config }, {
    type: "session.revoked",
    userId,
    actorId: audit.actorId ?? null,
    reason: audit.reason ?? "admin",
    details: { count },
  })
  return count
}

/**
 * Deletes a user through the adapter after revoking all their sessions (database rows and JWT watermark), and writes
 * the audit event `account.deleted` (no actor for this server-only call).
 *
 * @example
 * ```ts
 * await deleteUser(config, user.id)
 * ```
 */
export async function deleteUser(
  config: ResolvedConfig,
  userId: string,
  audit: { actorId?: string | null; confirmed?: boolean; source?: AuditSource } = {},
): Promise<AdapterUser | null> {
  const adapter = config.stores.management
  if (typeof adapter?.deleteUser !== "function") {
    throw new MissingAdapterMethods("deleteUser needs the adapter method deleteUser", {
      cause: { missing: ["deleteUser"] },
    })
  }
  const source = audit.source ?? { config }
  await revokeUserSessions(config, userId, { reason: "deleted", actorId: audit.actorId ?? null, source })
  const deleted = (await adapter.deleteUser(userId)) ?? null
  if (deleted) {
    await config.events.userDeleted({ user: deleted })
    await recordAudit(source, {
      type: "account.deleted",
      userId,
      actorId: audit.actorId ?? null,
      details: { confirmed: audit.confirmed === true },
    })
  }
  return deleted
}

/**
 * Who may administer (accounts.md §3.1): decided on every call from the stored user, never from a token. No session
 * is `SessionRequired`; an impersonation session `ImpersonationRestricted`; anyone else who is not an admin (or is
 * banned) `AdminRequired`. Both refusals are audited as `admin.denied` before any lookup of other users.
 */
import { AdminRequired, InvalidConfig } from "../../../errors"
import type { AdapterUser } from "../../../storage/adapter"
import { recordAudit } from "../../kernel/audit"
import type { SessionContext } from "../../session/types"
import { limitIdentifierOf } from "../../kernel/rate-limit/by-user"
import { principalForChange } from "../../session/for-change"
import { directory, requireSubject } from "../../session/subject"
import { isBanned } from "../../session/ban"

/** The admin of a call, as stored now. */
export interface AdminSubject {
  admin: AdapterUser
}

/**
 * Authorizes an admin call named `operation` (the function name, recorded in `admin.denied`).
 *
 * @example
 * ```ts
 * const { admin } = await requireAdmin(ctx, "banUser")
 * ```
 */
export async function requireAdmin(ctx: SessionContext, operation: string): Promise<AdminSubject> {
  const { config } = ctx
  const options = config.accounts.admin
  if (!options)
    throw new InvalidConfig("Administration is not configured: set the `admin` option", { cause: { option: "admin" } })
  const subject = await requireSubject(ctx)
  const deny = async (reason: "AdminRequired" | "ImpersonationRestricted") =>
    recordAudit(ctx, {
      type: "admin.denied",
      userId: subject.userId,
      outcome: "failure",
      reason,
      details: { operation },
    })
  // Audited first, then refused by the one refusal of changing calls: an admin call changes other users.
  if (subject.impersonatedBy !== undefined) await deny("ImpersonationRestricted")
  await principalForChange(ctx, "An impersonation session is never an admin")
  const admin = await directory(config).getUser(subject.userId)
  if (!admin || isBanned(admin) || !(await options.isAdmin(admin))) {
    await deny("AdminRequired")
    throw new AdminRequired("Only an admin may do this")
  }
  await limitIdentifierOf(config, "admin", admin.id)
  return { admin }
}

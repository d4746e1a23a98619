/**
 * Ending a user's other sessions after an identity change (email change): every session of the user but the one of
 * the requesting browser when it is theirs, which is re-issued with the new address (JWT) or kept (database).
 */
import { recordAudit } from "../../kernel/audit"
import { claimsOf, sessionWatermarkKey } from "../../session/claims"
import { writeJwtSession } from "../../session/jwt"
import { revokeUserSessions } from "../../session/manage"
import { deleteRows } from "../../session/revoke"
import { currentPrincipal, forgetPrincipal } from "../../session/principal"
import type { SessionContext } from "../../session/types"

/**
 * Revokes the user's sessions except the request's own (when it is the user's); a JWT one gets `patch` written in.
 *
 * @example
 * ```ts
 * await keepOnlyCurrentSession(ctx, userId, { email: newEmail })
 * ```
 */
export async function keepOnlyCurrentSession(
  ctx: SessionContext,
  userId: string,
  patch: { email?: string },
): Promise<void> {
  const { config } = ctx
  const door = await currentPrincipal(ctx)
  if (!door.ok || door.principal.userId !== userId) {
    await revokeUserSessions(config, userId, { reason: "email-change", source: ctx })
    return
  }
  if (door.principal.strategy === "database") {
    const own = door.principal.session.sessionToken
    const rows = (await config.accounts.store?.listSessionsByUserId?.(userId)) ?? []
    const others = rows.filter((row) => (row as { sessionToken?: string }).sessionToken !== own)
    const count = await deleteRows(config, others as Parameters<typeof deleteRows>[1])
    await recordAudit(ctx, { type: "session.revoked", userId, reason: "email-change", details: { count } })
    return
  }
  const now = Date.now()
  await config.store.setMax(sessionWatermarkKey(userId), now, config.session.maxAge)
  const token = door.principal.token
  await writeJwtSession(ctx, { ...token, ...patch, __gh: { ...claimsOf(token), se: now + 1 } }, door.cookie.present)
  forgetPrincipal(ctx)
  await recordAudit(ctx, { type: "session.revoked", userId, reason: "email-change" })
}

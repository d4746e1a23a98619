/**
 * Ending a user's other sessions after an identity change (email change): every session of the user but the one of
 * the requesting browser when it is theirs, which is re-issued with the new address (JWT, through the `jwt` callback
 * with `trigger: "update"`) or kept (database: it reads the user row, so it shows the new address at once).
 */
import { recordAudit } from "../../kernel/audit"
import { defaultCallbacks } from "../../kernel/config/callbacks"
import { clearSessionCookie } from "../../kernel/cookies/session-store"
import { claimsOf, keepClaims, sessionWatermarkKey } from "../../session/claims"
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
  const patched = { ...token, ...patch, __gh: { ...claimsOf(token), se: now + 1 } }
  // The app's `jwt` callback sees the change as an update, so claims it derives from the address follow it.
  const returned =
    config.callbacks.jwt === defaultCallbacks.jwt
      ? patched
      : await config.callbacks.jwt({ token: { ...patched }, session: { user: { ...patch } }, trigger: "update" })
  if (returned === null || returned === undefined) {
    // The callback ended the session; the old cookie is void under the watermark anyway.
    clearSessionCookie(ctx.jar, door.cookie.present, ctx.cookies.sessionToken.options)
  } else {
    await writeJwtSession(ctx, keepClaims(patched, returned), door.cookie.present)
  }
  forgetPrincipal(ctx)
  await recordAudit(ctx, { type: "session.revoked", userId, reason: "email-change" })
}

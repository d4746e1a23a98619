/** Reading a user's ban (accounts.md §3.4): `banned` with an expiry in the future, or none. */
import { AccountBanned } from "../../errors"
import type { AdapterUser } from "../../storage/adapter"
import { recordAudit } from "../kernel/audit"
import type { SessionContext } from "./types"

/** When a ban ends (ms), `null` for a permanent one. */
export function banExpiresAt(user: AdapterUser): number | null {
  const value = user.banExpires
  if (value === null || value === undefined) return null
  const at = new Date(value).getTime()
  return Number.isFinite(at) ? at : null
}

/** Whether the user is banned now (a ban whose expiry has passed no longer blocks). */
export function isBanned(user: AdapterUser, now = Date.now()): boolean {
  if (user.banned !== true) return false
  const expires = banExpiresAt(user)
  return expires === null || expires > now
}

/** Whether the user carries a ban that has expired (its columns are cleared at the next sign-in). */
export function hasExpiredBan(user: AdapterUser, now = Date.now()): boolean {
  if (user.banned !== true) return false
  const expires = banExpiresAt(user)
  return expires !== null && expires <= now
}

/**
 * The ban check of every sign-in (accounts.md §3.4), after the first factor identified the user and before any
 * session: a banned user is refused with `AccountBanned` (never the reason); an expired ban is cleared and audited
 * as `user.unbanned` (reason `expired`). A user the adapter does not know is not banned. Runs only where the
 * administration feature is configured (its store reads the user).
 *
 * @example
 * ```ts
 * await assertNotBanned(ctx, user.id)
 * ```
 */
export async function assertNotBanned(ctx: SessionContext, userId: string | null | undefined): Promise<void> {
  const store = ctx.config.accounts.store
  if (!store || !ctx.config.accounts.admin || typeof userId !== "string") return
  const user = await store.getUser(userId)
  if (!user) return
  if (isBanned(user)) throw new AccountBanned("This account is suspended")
  if (hasExpiredBan(user)) {
    await store.updateUser({ id: user.id, banned: false, banReason: null, banExpires: null })
    await recordAudit(ctx, { type: "user.unbanned", userId: user.id, reason: "expired", details: { expiresAt: null } })
  }
}

/**
 * Impersonation as an admin function (accounts.md §3.5): who may start it and whom, and stopping it. The session
 * room does the rest (issuing the bounded session, keeping the admin's cookie, restoring it).
 */
import { AccountBanned, AdminTarget, AlreadyImpersonating, InvalidTarget, SessionNotFresh } from "../../../errors"
import type { Session } from "../../kernel/types"
import { isBanned } from "../../session/ban"
import { carriesImpersonator, cookieOnly, startImpersonation, stopImpersonation } from "../../session/impersonation"
import { isSessionFresh } from "../../session/manage"
import type { SessionContext } from "../../session/types"
import { requireAdmin } from "./admin-guard"
import { limitIdentifierOf } from "../../kernel/rate-limit/by-user"
import { currentPrincipal, impersonatorOf } from "../../session/principal"
import { target } from "./admin-users"

/**
 * Starts acting as user `id`: the caller is an admin with a fresh session who is not impersonating; the target
 * exists, is not the caller, is not an admin and is not banned (checked in that order). Resolves to the target's
 * session, with `impersonatedBy`.
 *
 * @example
 * ```ts
 * const session = await impersonate(ctx, "u-2")
 * ```
 */
export async function impersonate(ctx: SessionContext, id: unknown): Promise<Session> {
  const cookies = cookieOnly(ctx)
  const { admin } = await requireAdmin(cookies, "impersonate")
  const options = cookies.config.accounts.admin!
  if (!(await isSessionFresh(cookies))) {
    throw new SessionNotFresh("Sign in again to impersonate", { cause: { freshAge: cookies.config.session.freshAge } })
  }
  if (await carriesImpersonator(cookies)) {
    throw new AlreadyImpersonating("Stop the current impersonation (or sign out) first")
  }
  const user = await target(cookies, id)
  if (user.id === admin.id) throw new InvalidTarget("You cannot impersonate yourself")
  if (await options.isAdmin(user)) throw new AdminTarget("An admin cannot be impersonated")
  if (isBanned(user)) throw new AccountBanned("A banned user cannot be impersonated", { status: 409 })
  return startImpersonation(cookies, admin.id, user, options.impersonationMaxAge)
}

/**
 * Ends the request's impersonation and restores the admin's own session (or `null` when it no longer reads as that
 * admin). Needs an impersonation session: `NotImpersonating` otherwise.
 *
 * @example
 * ```ts
 * const adminSession = await stopImpersonating(ctx)
 * ```
 */
export async function stopImpersonating(ctx: SessionContext): Promise<Session | null> {
  const cookies = cookieOnly(ctx)
  // An admin function too (the `admin` rule, keyed by the admin), though it runs on the impersonation session.
  const door = await currentPrincipal(cookies)
  const adminId = door.ok ? impersonatorOf(door.principal) : undefined
  if (adminId !== undefined) await limitIdentifierOf(cookies.config, "admin", adminId)
  return stopImpersonation(cookies)
}

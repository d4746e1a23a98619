/**
 * Who an account or admin call acts for: the session's principal (through the one door), its user as stored, and
 * the checks every mutating call runs (fresh session, no impersonation).
 */
import { ImpersonationRestricted, InvalidConfig, SessionNotFresh, SessionRequired } from "../../errors"
import type { AdapterUser } from "../../storage/adapter"
import type { DirectoryStore } from "../kernel/accounts/types"
import type { ResolvedConfig } from "../kernel/config/types"
import { isSessionFresh } from "./manage"
import { currentPrincipal, impersonatorOf } from "./principal"

export { impersonatorOf }
import type { Principal, SessionContext } from "./types"

/** The signed-in subject of a call. */
export interface Subject {
  principal: Principal
  userId: string
  /** The stored user (`null` for a JWT user the adapter does not know). */
  user: AdapterUser | null
  /** The admin id of an impersonation session, else `undefined`. */
  impersonatedBy: string | undefined
}

/** The adapter methods of the account features; `InvalidConfig` naming the option when none is configured. */
export function directory(config: ResolvedConfig): DirectoryStore {
  const store = config.accounts.store
  if (!store) {
    throw new InvalidConfig("Account self-service is not configured: set the `account` option", {
      cause: { option: "account" },
    })
  }
  return store
}

/**
 * `ImpersonationRestricted` when the request's session is an impersonation session: it may read, but not change
 * credentials, identity or tokens (accounts.md §3.5). Nothing for any other request.
 *
 * @example
 * ```ts
 * await refuseImpersonation(ctx)
 * ```
 */
export async function refuseImpersonation(ctx: SessionContext): Promise<void> {
  const door = await currentPrincipal(ctx)
  if (door.ok && impersonatorOf(door.principal) !== undefined) {
    throw new ImpersonationRestricted("An impersonation session cannot change the account")
  }
}

/**
 * The subject of the request, or `SessionRequired`. With `mutating`, an impersonation session is refused
 * (`ImpersonationRestricted`); with `fresh`, a session older than `session.freshAge` (`SessionNotFresh`).
 *
 * @example
 * ```ts
 * const { userId, user } = await requireSubject(ctx, { mutating: true, fresh: true })
 * ```
 */
export async function requireSubject(
  ctx: SessionContext,
  options: { mutating?: boolean; fresh?: boolean } = {},
): Promise<Subject> {
  const door = await currentPrincipal(ctx)
  if (!door.ok || door.principal.userId === undefined) throw new SessionRequired("Sign in first")
  const { principal } = door
  const userId = principal.userId as string
  const impersonatedBy = impersonatorOf(principal)
  if (options.mutating && impersonatedBy !== undefined) {
    throw new ImpersonationRestricted("An impersonation session cannot change the account")
  }
  if (options.fresh && !(await isSessionFresh(ctx))) {
    throw new SessionNotFresh("Sign in again to do this", { cause: { freshAge: ctx.config.session.freshAge } })
  }
  const user = principal.strategy === "database" ? principal.user : await directory(ctx.config).getUser(userId)
  return { principal, userId, user, impersonatedBy }
}

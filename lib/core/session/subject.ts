/**
 * Who an account or admin call acts for: the session's principal (through the one door), its user as stored, and
 * the checks every mutating call runs (fresh session, no impersonation: through `principalForChange`).
 */
import { InvalidConfig, SessionNotFresh, SessionRequired } from "../../errors"
import type { AdapterUser } from "../../storage/adapter"
import type { DirectoryStore } from "../kernel/accounts/types"
import type { ResolvedConfig } from "../kernel/config/types"
import { principalForChange } from "./for-change"
import { isSessionFresh } from "./manage"
import { currentPrincipal, impersonatorOf } from "./principal"

export { impersonatorOf }
import type { Principal, PrincipalResult, SessionContext } from "./types"

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
 * The subject of the request, for a call that reads (the admin guard decides on impersonation itself), or
 * `SessionRequired`.
 *
 * @example
 * ```ts
 * const { userId, impersonatedBy } = await requireSubject(ctx)
 * ```
 */
export async function requireSubject(ctx: SessionContext): Promise<Subject> {
  return subjectOf(ctx, await currentPrincipal(ctx), false)
}

/**
 * The subject of a call that changes the account, through {@link principalForChange}: `SessionRequired` without a
 * session, `ImpersonationRestricted` for an impersonation session, and `SessionNotFresh` for a session older than
 * `session.freshAge`.
 *
 * @example
 * ```ts
 * const { userId, user } = await subjectForChange(ctx)
 * ```
 */
export async function subjectForChange(ctx: SessionContext): Promise<Subject> {
  return subjectOf(ctx, await principalForChange(ctx), true)
}

/** The subject of a door's answer (its user as stored), or `SessionRequired`; with `fresh`, `SessionNotFresh` too. */
async function subjectOf(ctx: SessionContext, door: PrincipalResult, fresh: boolean): Promise<Subject> {
  if (!door.ok || door.principal.userId === undefined) throw new SessionRequired("Sign in first")
  const { principal } = door
  const userId = principal.userId as string
  const impersonatedBy = impersonatorOf(principal)
  if (fresh && !(await isSessionFresh(ctx))) {
    throw new SessionNotFresh("Sign in again to do this", { cause: { freshAge: ctx.config.session.freshAge } })
  }
  const user = principal.strategy === "database" ? principal.user : await directory(ctx.config).getUser(userId)
  return { principal, userId, user, impersonatedBy }
}

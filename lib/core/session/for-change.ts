/**
 * The one way a changing call gets who it changes (accounts.md §3.5): an impersonation session may read, but never
 * change credentials, identity or tokens. Every site that changes the signed-in user's data (two-factor, password,
 * passkeys, account linking, access tokens, the native app sign-in, the account members) asks this module for that
 * user, so the refusal cannot be forgotten at one of them; an architecture test holds the methods' rooms to it.
 */
import { ImpersonationRestricted } from "../../errors"
import type { AdapterUser } from "../../storage/adapter"
import { currentPrincipal, impersonatorOf, signedInUser } from "./principal"
import type { PrincipalResult, SessionContext } from "./types"

const CHANGE_REFUSED = "An impersonation session cannot change the account"

/**
 * The door's answer for a call that is about to change the signed-in user's data: as {@link currentPrincipal}
 * answers it (the caller decides what no session means), but `ImpersonationRestricted` (with `refusal` as its
 * message) for an impersonation session.
 *
 * @example
 * ```ts
 * const door = await principalForChange(ctx)
 * if (!door.ok) throw new SessionRequired("Sign in first")
 * ```
 */
export async function principalForChange(ctx: SessionContext, refusal = CHANGE_REFUSED): Promise<PrincipalResult> {
  const door = await currentPrincipal(ctx)
  if (door.ok && impersonatorOf(door.principal) !== undefined) throw new ImpersonationRestricted(refusal)
  return door
}

/**
 * The signed-in user as the adapter stores them (as {@link signedInUser} finds them, `null` without one), for a call
 * about to change them: `ImpersonationRestricted` for an impersonation session.
 *
 * @example
 * ```ts
 * const user = await userForChange(sessionContext(ctx))
 * ```
 */
export async function userForChange(ctx: SessionContext): Promise<AdapterUser | null> {
  await principalForChange(ctx)
  return signedInUser(ctx)
}

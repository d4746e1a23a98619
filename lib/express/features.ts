/** The members of the optional features in Express's shape: two-factor sign-in and the Password provider. */
import type { Gatehouse } from "../core/pipeline/gatehouse"
import { passwordFunctions } from "./password"
import { expressTwoFactor } from "./two-factor"

/**
 * Every feature member of `core`, spread into the Express instance.
 *
 * @example
 * ```ts
 * return { handlers, auth, ...featureMembers(core) }
 * ```
 */
export function featureMembers(core: Gatehouse) {
  return { ...expressTwoFactor(core), ...passwordFunctions(core) }
}

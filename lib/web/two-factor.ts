/** The two-factor members in the Fetch shape: `(request, input)`; cookies are queued for `applyCookies`. */
import type { Gatehouse, RequestPort } from "../core/pipeline/gatehouse"
import type { WebTwoFactor } from "./types"

/**
 * The Fetch members of `core`, on the ports `portOf` makes.
 *
 * @example
 * ```ts
 * const { enableTotp } = webTwoFactor(core, portOf)
 * ```
 */
export function webTwoFactor(core: Gatehouse, portOf: (request: Request) => RequestPort): WebTwoFactor {
  return {
    twoFactorStatus: (request) => core.twoFactorStatus(portOf(request)),
    enableTotp: (request, input) => core.enableTotp(portOf(request), input),
    verifyTotpEnrolment: (request, input) => core.verifyTotpEnrolment(portOf(request), input),
    disableTotp: (request, input) => core.disableTotp(portOf(request), input),
    regenerateBackupCodes: (request, input) => core.regenerateBackupCodes(portOf(request), input),
  }
}

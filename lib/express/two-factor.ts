/** The two-factor members in Express's shape: `(req, res, input)`; cookies (a re-issued session) go to `res`. */
import type { Request, Response as ExpressResponse } from "express"
import type { Gatehouse } from "../core/pipeline/gatehouse"
import { ExpressPort } from "./port"
import type { ExpressTwoFactor } from "./types"

/**
 * The Express members of `core`.
 *
 * @example
 * ```ts
 * const { enableTotp } = expressTwoFactor(core)
 * ```
 */
export function expressTwoFactor(core: Gatehouse): ExpressTwoFactor {
  const port = (req: Request, res?: ExpressResponse) => new ExpressPort(req, res)
  return {
    twoFactorStatus: (req, res) => core.twoFactorStatus(port(req, res)),
    enableTotp: (req, res, input) => core.enableTotp(port(req, res), input),
    verifyTotpEnrolment: (req, res, input) => core.verifyTotpEnrolment(port(req, res), input),
    disableTotp: (req, res, input) => core.disableTotp(port(req, res), input),
    regenerateBackupCodes: (req, res, input) => core.regenerateBackupCodes(port(req, res), input),
  }
}

/** The Password provider's server functions in Express's shape: `(req, res, input)`. */
import type { Request, Response as ExpressResponse } from "express"
import { passwordMembers, type Gatehouse } from "../core/pipeline/gatehouse"
import type { PasswordServerFunctions } from "../password/types"
import { ExpressPort } from "./port"

/**
 * `signUp`, `requestPasswordReset`, `resetPassword`, `changePassword`, `setPassword` and `sendVerificationEmail`.
 *
 * @example
 * ```ts
 * const { changePassword } = passwordFunctions(core)
 * await changePassword(req, res, { currentPassword, newPassword })
 * ```
 */
export function passwordFunctions(core: Gatehouse): PasswordServerFunctions<[Request, ExpressResponse]> {
  return passwordMembers(
    (member) => (req: Request, res: ExpressResponse, input: object) =>
      core.password(new ExpressPort(req, res), member, { ...input }),
  ) as PasswordServerFunctions<[Request, ExpressResponse]>
}

/**
 * The members of the optional features in Express's shape: two-factor sign-in, the Password provider, and account
 * self-service, administration and the audit trail, and access tokens.
 */
import type { Request, Response as ExpressResponse } from "express"
import type { AccessTokenRequest, Gatehouse, RequestPort } from "../core/pipeline/gatehouse"
import { expressAccountMembers } from "./accounts"
import { passwordFunctions } from "./password"
import { expressTwoFactor } from "./two-factor"

/**
 * Every feature member of `core`, spread into the Express instance.
 *
 * @example
 * ```ts
 * return { handlers, auth, ...featureMembers(core, port) }
 * ```
 */
export function featureMembers(core: Gatehouse, port: (req: Request, res?: ExpressResponse) => RequestPort) {
  return {
    ...expressTwoFactor(core),
    ...passwordFunctions(core),
    ...expressAccountMembers(core.accounts, port),
    issueAccessToken: (req: Request, res: ExpressResponse, input?: AccessTokenRequest) =>
      core.issueAccessToken(port(req, res), input),
    rotateAccessTokenKeys: () => core.rotateAccessTokenKeys(),
  }
}

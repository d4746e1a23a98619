/**
 * The two-factor members in Express's shape: `(req, res, input)` in front of the core's member of the same name;
 * cookies (a re-issued session) go to `res`. Behaviour lives in the core.
 */
import type { Request, Response as ExpressResponse } from "express"
import { TWO_FACTOR_MEMBERS } from "../core/pipeline/gatehouse"
import type { Gatehouse, RequestPort } from "../core/pipeline/gatehouse"
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
  const out: Record<string, unknown> = {}
  for (const name of TWO_FACTOR_MEMBERS) {
    const member = core[name] as (port: RequestPort, ...rest: unknown[]) => unknown
    out[name] = (req: Request, res?: ExpressResponse, ...rest: unknown[]) => member(new ExpressPort(req, res), ...rest)
  }
  return out as ExpressTwoFactor
}

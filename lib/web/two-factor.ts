/**
 * The two-factor members in the Fetch shape: `(request, input)` in front of the core's member of the same name;
 * cookies are queued for `applyCookies`. Behaviour lives in the core.
 */
import { TWO_FACTOR_MEMBERS } from "../core/pipeline/gatehouse"
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
  const out: Record<string, unknown> = {}
  for (const name of TWO_FACTOR_MEMBERS) {
    const member = core[name] as (port: RequestPort, ...rest: unknown[]) => unknown
    out[name] = (request: Request, ...rest: unknown[]) => member(portOf(request), ...rest)
  }
  return out as WebTwoFactor
}

/**
 * The account, administration and audit members in Express's shape: `(req, res, ...input)` in front of the core's
 * member of the same name (the server-only ones as they are). Behaviour lives in the core.
 */
import type { Request, Response as ExpressResponse } from "express"
import { SERVER_ONLY_ACCOUNT_MEMBERS } from "../core/pipeline/gatehouse"
import type { AccountMembers, RequestPort } from "../core/pipeline/gatehouse"
import type { ExpressAccountMembers } from "./types"

/**
 * Maps the core's account members to the Express flavour.
 *
 * @example
 * ```ts
 * const members = expressAccountMembers(core.accounts, (req, res) => new ExpressPort(req, res))
 * ```
 */
export function expressAccountMembers(
  members: AccountMembers<RequestPort>,
  portOf: (req: Request, res?: ExpressResponse) => RequestPort,
): ExpressAccountMembers {
  const out: Record<string, unknown> = {}
  for (const [name, member] of Object.entries(members) as Array<[string, (...args: unknown[]) => unknown]>) {
    out[name] = SERVER_ONLY_ACCOUNT_MEMBERS.has(name)
      ? member
      : (req: Request, res?: ExpressResponse, ...rest: unknown[]) => member(portOf(req, res), ...rest)
  }
  return out as ExpressAccountMembers
}

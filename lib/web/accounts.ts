/**
 * The account, administration and audit members in the Fetch shape: `(request, ...input)` in front of the core's
 * member of the same name (the server-only ones as they are); cookies are queued for `applyCookies`.
 */
import { SERVER_ONLY_ACCOUNT_MEMBERS } from "../core/pipeline/gatehouse"
import type { AccountMembers, RequestPort } from "../core/pipeline/gatehouse"
import type { WebAccountMembers } from "./types"

/**
 * Maps the core's account members to the Fetch flavour.
 *
 * @example
 * ```ts
 * const members = webAccountMembers(core.accounts, portOf)
 * ```
 */
export function webAccountMembers(
  members: AccountMembers<RequestPort>,
  portOf: (request: Request) => RequestPort,
): WebAccountMembers {
  const out: Record<string, unknown> = {}
  for (const [name, member] of Object.entries(members) as Array<[string, (...args: unknown[]) => unknown]>) {
    out[name] = SERVER_ONLY_ACCOUNT_MEMBERS.has(name)
      ? member
      : (request: Request, ...rest: unknown[]) => member(portOf(request), ...rest)
  }
  return out as WebAccountMembers
}

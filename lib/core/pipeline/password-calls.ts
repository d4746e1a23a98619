/**
 * The Password provider's server functions (`signUp`, `requestPasswordReset`, `resetPassword`, `changePassword`,
 * `setPassword`, `sendVerificationEmail`): the origin guard of server-side `signIn`, then the route's own action run
 * in-process, so the policy, rate limits, emails, events and revocations are the routes' (one code path).
 */
import { InvalidConfig } from "../../errors"
import type { ResolvedConfig } from "../kernel/config/types"
import type { AuthAction } from "../kernel/routes"
import { invokeAction } from "./invoke"
import type { ConfigRuntime } from "./runtime"
import { assertGuard, baseCall, throwIfFailed, type ServerCallRequest } from "./server-calls"

/** The server functions, each with the route it runs. */
export const passwordMemberActions = {
  signUp: "signup",
  requestPasswordReset: "forgot-password",
  resetPassword: "reset-password",
  changePassword: "change-password",
  setPassword: "set-password",
  sendVerificationEmail: "resend-verification",
} as const satisfies Record<string, AuthAction>

/** A Password server function's name. */
export type PasswordMember = keyof typeof passwordMemberActions

/** The input of a Password server function: one object (`csrf: false` skips the origin guard for this call). */
export type PasswordInput = Record<string, unknown> & { csrf?: boolean }

/**
 * Runs one Password server function: `InvalidConfig` without the provider, `MissingCSRF` when the origin guard fails,
 * else the route's action; its error is thrown, its cookies are returned.
 *
 * @example
 * ```ts
 * const { setCookies } = await passwordCall(runtime, config, request, "changePassword", { currentPassword, newPassword })
 * ```
 */
export async function passwordCall(
  runtime: Pick<ConfigRuntime, "sessionCache">,
  config: ResolvedConfig,
  request: ServerCallRequest,
  member: PasswordMember,
  input: PasswordInput = {},
): Promise<{ ok: true; setCookies: string[] }> {
  if (!config.providers.some((p) => p.type === "password")) {
    throw new InvalidConfig(`${member}() needs the Password provider: add Password() to \`providers\``, {
      cause: { missing: "providers: Password()" },
    })
  }
  const { csrf, ...body } = input ?? {}
  if (csrf !== false) assertGuard(config, request, member)
  const headers = new Headers(request.headers)
  // The action answers its JSON form: nothing of the caller's request decides between a page and a redirect.
  headers.set("content-type", "application/json")
  headers.delete("X-Auth-Return-Redirect")
  const outcome = await invokeAction(runtime, config, {
    ...baseCall(request),
    headers,
    action: passwordMemberActions[member],
    method: "POST",
    body,
  })
  throwIfFailed(request, outcome)
  return { ok: true, setCookies: outcome.setCookies }
}

/**
 * The six members in an edge's shape: `make(member)` builds one.
 *
 * @example
 * ```ts
 * ...passwordMembers((member) => (req, res, input) => core.password(portOf(req, res), member, input))
 * ```
 */
export function passwordMembers<F>(make: (member: PasswordMember) => F): Record<PasswordMember, F> {
  const out = {} as Record<PasswordMember, F>
  for (const member of Object.keys(passwordMemberActions) as PasswordMember[]) out[member] = make(member)
  return out
}

/** Runs the `signIn` callback the same way for every flow. */
import { AccessDenied, AuthError } from "../../errors"
import type { RequestContext } from "../context"
import type { CallbacksOptions } from "../types"

/**
 * Calls `callbacks.signIn`. Returns `undefined` to continue, or a URL (through the `redirect` callback) when the
 * callback returned a string. `false` or a thrown plain error becomes `AccessDenied`; a thrown `AuthError` passes.
 *
 * @example
 * ```ts
 * const redirect = await runSignInCallback(ctx, { user, account, credentials })
 * if (redirect) return { redirect }
 * ```
 */
export async function runSignInCallback(
  ctx: RequestContext,
  params: Parameters<CallbacksOptions["signIn"]>[0],
): Promise<string | undefined> {
  let result: boolean | string
  try {
    result = await ctx.config.callbacks.signIn(params)
  } catch (error) {
    if (error instanceof AuthError) throw error
    throw new AccessDenied(error as Error)
  }
  if (typeof result === "string") return ctx.config.callbacks.redirect({ url: result, baseUrl: ctx.origin })
  if (!result) throw new AccessDenied("AccessDenied")
  return undefined
}

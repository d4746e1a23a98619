/** GET /csrf: the CSRF token for the double-submit cookie. */
import type { RequestContext } from "../../kernel/context"
import { jsonHeaders, noCacheHeaders, type AuthResult } from "../../kernel/response"

/**
 * Returns `{csrfToken}`; with `skipCSRFCheck` answers 404 and deletes the CSRF cookie.
 *
 * @example
 * ```ts
 * csrfAction(ctx).body // { csrfToken: "…64 hex…" }
 * ```
 */
export function csrfAction(ctx: RequestContext): AuthResult {
  if (ctx.config.skipCSRFCheck) {
    ctx.config.logger.warn("csrf-disabled")
    ctx.jar.delete(ctx.cookies.csrfToken.name, ctx.cookies.csrfToken.options)
    return { status: 404 }
  }
  return { headers: { ...jsonHeaders, ...noCacheHeaders }, body: { csrfToken: ctx.csrfToken } }
}

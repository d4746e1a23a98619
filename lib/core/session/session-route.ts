/** GET /session reads the session; POST /session (CSRF-checked) updates it through the callbacks. */
import { readSession } from "./"
import type { RequestContext } from "../kernel/context"
import { jsonHeaders, noCacheHeaders, type AuthResult } from "../kernel/response"
import { sessionContext } from "./context"

/**
 * Answers GET /session (and POST with `{csrfToken, data}` for updates; the router answers a failed CSRF check with
 * 400 `null`).
 *
 * @example
 * ```ts
 * const result = await sessionAction(ctx)
 * ```
 */
export async function sessionAction(ctx: RequestContext): Promise<AuthResult> {
  if (ctx.request.method === "POST") {
    const session = await readSession(sessionContext(ctx), {
      reissue: "always",
      update: { data: ctx.request.body?.data },
      failOnOutage: true,
    })
    return { headers: { ...jsonHeaders }, body: session }
  }
  // A JWT cookie is re-issued only when that changes something (issue 16, a deliberate difference from the
  // reference); a database session cookie is re-sent on every read, as the reference does (it costs no crypto).
  const reissue = ctx.config.session.strategy === "jwt" ? "throttled" : "always"
  // An outage answers 503 (the Auth.js client reads a failed /session as no session, and may retry), not `null`.
  const session = await readSession(sessionContext(ctx), { reissue, failOnOutage: true })
  return { headers: { ...jsonHeaders, ...noCacheHeaders }, body: session }
}

/** GET /session reads the session; POST /session (CSRF-checked) updates it through the callbacks. */
import { readSession, type SessionContext } from "../session"
import type { RequestContext } from "../context"
import { jsonHeaders, noCacheHeaders, type AuthResult } from "../response"

function sessionContext(ctx: RequestContext): SessionContext {
  return { config: ctx.config, cookies: ctx.cookies, requestCookies: ctx.request.cookies, jar: ctx.jar }
}

/**
 * Answers GET /session (and POST with `{csrfToken, data}` for updates; a failed CSRF check answers 400 `null`).
 *
 * @example
 * ```ts
 * const result = await sessionAction(ctx)
 * ```
 */
export async function sessionAction(ctx: RequestContext): Promise<AuthResult> {
  if (ctx.request.method === "POST") {
    if (!ctx.csrfVerified) return { status: 400, headers: { ...jsonHeaders }, body: null }
    const session = await readSession(sessionContext(ctx), {
      reissue: "always",
      update: { data: ctx.request.body?.data },
    })
    return { headers: { ...jsonHeaders }, body: session }
  }
  const session = await readSession(sessionContext(ctx), { reissue: "always" })
  return { headers: { ...jsonHeaders, ...noCacheHeaders }, body: session }
}

export { sessionContext }

/** The session layer's view of a request: the slice of the request context its functions need, one per request. */
import type { RequestContext } from "../kernel/context"
import type { SessionContext } from "./types"

const slices = new WeakMap<RequestContext, SessionContext>()

/**
 * The slice of the request context the session functions need. The same object for every call on one request, so
 * what it remembers (who is signed in, read once by the door) is shared by every reader of that request.
 *
 * @example
 * ```ts
 * const session = await readSession(sessionContext(ctx), { reissue: "always" })
 * ```
 */
export function sessionContext(ctx: RequestContext): SessionContext {
  let slice = slices.get(ctx)
  if (!slice) {
    slice = {
      config: ctx.config,
      cookies: ctx.cookies,
      // A token sign-in ignores the browser's cookies: its session is not replaced or deleted (tokens.md T1.4).
      requestCookies: ctx.tokenAnswer ? {} : ctx.request.cookies,
      jar: ctx.jar,
      sessionCache: ctx.sessionCache,
      userAgent: ctx.request.headers.get("user-agent"),
      clientIp: () =>
        ctx.clientIp !== undefined ? ctx.clientIp : (ctx.config.rateLimit.ip?.(ctx.webRequest()) ?? null),
      memo: {},
      ...(ctx.bearer ? { bearer: ctx.bearer } : {}),
      ...(ctx.bearer || ctx.tokenAnswer ? { tokenOut: {} } : {}),
    }
    slices.set(ctx, slice)
  }
  return slice
}

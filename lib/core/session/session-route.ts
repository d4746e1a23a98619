/** GET /session reads the session; POST /session (CSRF-checked) updates it through the callbacks. */
import { readSession } from "./"
import type { RequestContext } from "../kernel/context"
import { jsonHeaders, noCacheHeaders, type AuthResult } from "../kernel/response"
import { sessionContext } from "./context"
import type { SessionContext } from "./types"
import { withKeys } from "../../with-keys"

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
  const slice = sessionContext(ctx)
  if (ctx.request.method === "POST") {
    const session = await readSession(slice, {
      reissue: "always",
      update: { data: ctx.request.body?.data },
      failOnOutage: true,
    })
    return { headers: withKeys(jsonHeaders, reissuedTokenHeaders(slice)), body: session }
  }
  // A JWT cookie is re-issued only when that changes something (issue 16, a deliberate difference from the
  // reference); a database session cookie is re-sent on every read, as the reference does (it costs no crypto).
  const reissue = ctx.config.session.strategy === "jwt" ? "throttled" : "always"
  // An outage answers 503 (the Auth.js client reads a failed /session as no session, and may retry), not `null`.
  const session = await readSession(slice, { reissue, failOnOutage: true })
  const reissued = reissuedTokenHeaders(slice)
  // A cookie read (nearly every one) answers the shared frozen headers: the wire form caches their pairs.
  return { headers: reissued === NONE ? readHeaders : withKeys(readHeaders, reissued), body: session }
}

/** No headers: what {@link reissuedTokenHeaders} answers for a cookie request, shared and frozen. */
const NONE: Readonly<Record<string, string>> = Object.freeze({})

/** The headers of every GET /session answer, made once (a spread adding keys is slow on every request: with-keys.ts). */
const readHeaders: Readonly<Record<string, string>> = Object.freeze({ ...jsonHeaders, ...noCacheHeaders })

/**
 * A JWT bearer session re-issued by this read (tokens.md T1.3): the new token in `X-Auth-Token` and its expiry in
 * `X-Auth-Token-Expires`, never a cookie. Nothing for a cookie request.
 *
 * @example
 * ```ts
 * const headers = reissuedTokenHeaders(sessionContext(ctx))
 * ```
 */
export function reissuedTokenHeaders(ctx: Pick<SessionContext, "bearer" | "tokenOut">): Record<string, string> {
  const out = ctx.bearer ? ctx.tokenOut : undefined
  if (!out?.token) return NONE
  return { "X-Auth-Token": out.token, "X-Auth-Token-Expires": String(out.expires), "Cache-Control": "no-store" }
}

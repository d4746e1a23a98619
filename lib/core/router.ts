/** One table from (action, method) to the handler that answers it. */
import { UnknownAction } from "../errors"
import type { AuthAction } from "./config/env"
import type { RequestContext } from "./context"
import type { AuthResult } from "./response"
import { callbackAction } from "./actions/callback"
import { csrfAction } from "./actions/csrf"
import { errorPage, verifyRequestPage } from "./actions/pages"
import { listProviders } from "./actions/providers"
import { sessionAction } from "./actions/session"
import { signInAction } from "./actions/signin"
import { signOutAction } from "./actions/signout"

type Handler = (ctx: RequestContext) => AuthResult | Promise<AuthResult>

const routes: Record<AuthAction, Partial<Record<"GET" | "POST", Handler>>> = {
  providers: { GET: listProviders },
  session: { GET: sessionAction, POST: sessionAction },
  csrf: { GET: csrfAction },
  signin: { GET: signInAction, POST: signInAction },
  signout: { GET: signOutAction, POST: signOutAction },
  callback: { GET: callbackAction, POST: callbackAction },
  "verify-request": { GET: verifyRequestPage },
  error: { GET: errorPage },
  "webauthn-options": {},
}

/**
 * Runs the handler of the request's action and method; an unsupported pair throws `UnknownAction`.
 *
 * @example
 * ```ts
 * const result = await route(ctx)
 * ```
 */
export async function route(ctx: RequestContext): Promise<AuthResult> {
  const handler = routes[ctx.request.action][ctx.request.method]
  if (!handler) throw new UnknownAction(`Cannot handle action: ${ctx.request.action}`)
  return handler(ctx)
}

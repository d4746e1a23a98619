/** `requireAuth(config)`: route protection — 401 JSON for API clients, a redirect to sign-in for browsers. */
import type { Request, RequestHandler } from "express"
import type { AuthConfig, Session } from "../core"
import { instanceFor } from "./gatehouse"
import type { SignedInHandler } from "./types"

export interface RequireAuthOptions {
  /** Extra check on an authenticated request; `false` answers 403. */
  authorize?: (session: Session, req: Request) => boolean | Promise<boolean>
  /** Where browsers go to sign in. Default: `pages.signIn`, else `<mount path>/signin`. */
  signInUrl?: string
}

/**
 * Middleware that lets only signed-in requests through, setting `res.locals.session`, `req.auth` and `req.user`.
 * Others get 401 JSON (API clients) or a 302 to the sign-in page with `callbackUrl` (browsers): the page under the
 * path `ExpressAuth(config)` is mounted at. When the config has a `callbacks.authorized`, it runs too: a falsy result
 * denies (403 when signed in), a returned `Response` is sent as it is.
 *
 * @example
 * ```ts
 * app.get("/me", requireAuth(authConfig), (req, res) => res.json(res.locals.session))
 * app.get("/admin", requireAuth(authConfig, { authorize: (s) => s.user?.email === "root@example.com" }), admin)
 * ```
 */
export function requireAuth(config: AuthConfig, options?: RequireAuthOptions): RequestHandler
/**
 * The same guard around a handler that sees the signed-in user: its `req.user` is typed `User`, not `User | undefined`.
 *
 * @example
 * ```ts
 * app.get("/me", requireAuth(authConfig, (req, res) => res.json({ email: req.user.email })))
 * ```
 */
export function requireAuth(config: AuthConfig, handler: SignedInHandler): RequestHandler
export function requireAuth(config: AuthConfig, options: RequireAuthOptions, handler: SignedInHandler): RequestHandler
export function requireAuth(
  config: AuthConfig,
  optionsOrHandler: RequireAuthOptions | SignedInHandler = {},
  handler?: SignedInHandler,
): RequestHandler {
  const instance = instanceFor(config)
  if (typeof optionsOrHandler === "function") return instance.requireAuth(optionsOrHandler)
  return handler ? instance.requireAuth(optionsOrHandler, handler) : instance.requireAuth(optionsOrHandler)
}

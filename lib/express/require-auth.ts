/** `requireAuth(config)`: route protection — 401 JSON for API clients, a redirect to sign-in for browsers. */
import type { NextFunction, Request, RequestHandler, Response as ExpressResponse } from "express"
import { resolveConfigCached, type AuthConfig, type Session } from "../core"
import { sendWebResponse } from "./convert"
import { getSession } from "./session"

export interface RequireAuthOptions {
  /** Extra check on an authenticated request; `false` answers 403. */
  authorize?: (session: Session, req: Request) => boolean | Promise<boolean>
  /** Where browsers go to sign in. Default: `pages.signIn`, else `<basePath>/signin`. */
  signInUrl?: string
}

/** API clients: an Accept header without text/html, or an XHR/fetch request. */
function wantsJson(req: Request): boolean {
  const accept = req.headers.accept ?? ""
  if (req.headers["x-requested-with"] === "XMLHttpRequest") return true
  const mode = req.headers["sec-fetch-mode"]
  if (mode === "cors" || mode === "same-origin") return true
  return !accept.includes("text/html")
}

function requestOrigin(req: Request, authUrl?: URL): string {
  if (authUrl) return authUrl.origin
  return `${req.protocol}://${req.get("host") ?? "localhost"}`
}

function deny(req: Request, res: ExpressResponse, status: 401 | 403, signInUrl: () => string): void {
  if (status === 403) {
    res.status(403)
    if (wantsJson(req)) res.json({ error: "Forbidden" })
    else res.type("text/plain").send("Forbidden")
    return
  }
  if (wantsJson(req)) {
    res.status(401).json({ error: "Unauthorized" })
    return
  }
  res.redirect(302, signInUrl())
}

function isAuthenticated(this: Request): boolean {
  return Boolean(this.auth)
}

function attach(req: Request, res: ExpressResponse, session: Session | null): void {
  res.locals.session = session
  req.auth = session
  req.user = session?.user ?? undefined
  // Passport's own isAuthenticated() is left in place when the app uses both.
  if (typeof (req as { isAuthenticated?: unknown }).isAuthenticated !== "function") {
    req.isAuthenticated = isAuthenticated as Request["isAuthenticated"]
  }
}

/**
 * Middleware that lets only signed-in requests through, setting `res.locals.session`, `req.auth` and `req.user`.
 * Others get 401 JSON (API clients) or a 302 to the sign-in page with `callbackUrl` (browsers). When the config has a
 * `callbacks.authorized`, it runs too: `false` denies, a returned `Response` is sent as it is.
 *
 * @example
 * ```ts
 * app.get("/me", requireAuth(authConfig), (req, res) => res.json(res.locals.session))
 * app.get("/admin", requireAuth(authConfig, { authorize: (s) => s.user?.email === "root@example.com" }), admin)
 * ```
 */
export function requireAuth(config: AuthConfig, options: RequireAuthOptions = {}): RequestHandler {
  const resolved = resolveConfigCached(config)
  const authorized = config.callbacks?.authorized
  return function gatehouseRequireAuth(req: Request, res: ExpressResponse, next: NextFunction): void {
    const run = async () => {
      const session = await getSession(req, config)
      attach(req, res, session)
      // Built only when needed: the URL a browser is sent to, with this request as the place to come back to.
      const signInUrl = () => {
        const callbackUrl = `${requestOrigin(req, resolved.authUrl)}${req.originalUrl}`
        const page = options.signInUrl ?? resolved.pages.signIn ?? `${resolved.basePath}/signin`
        return `${page}${page.includes("?") ? "&" : "?"}${new URLSearchParams({ callbackUrl })}`
      }
      if (authorized) {
        const nextUrl = new URL(`${requestOrigin(req, resolved.authUrl)}${req.originalUrl}`)
        const headers = new Headers()
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v)
        const verdict = await authorized({
          auth: session,
          request: { url: nextUrl.href, nextUrl, method: req.method, headers },
        })
        if (verdict instanceof globalThis.Response) return sendWebResponse(verdict, res)
        if (verdict === false) return deny(req, res, session ? 403 : 401, signInUrl)
      }
      if (!session) return deny(req, res, 401, signInUrl)
      if (options.authorize && !(await options.authorize(session, req))) return deny(req, res, 403, signInUrl)
      next()
    }
    run().catch(next)
  }
}

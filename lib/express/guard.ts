/**
 * The one deny rule of the Express layer (`requireAuth`, `app.use(auth)`, `auth(handler)`): read the session, attach
 * it to the request, run `callbacks.authorized`, and answer 401 JSON, a 302 to sign-in, or 403 when access is denied.
 */
import { IncomingMessage } from "node:http"
import type { NextFunction, Request, RequestHandler, Response as ExpressResponse } from "express"
import type { Session } from "../core"
import { wantsJson, type AccessVerdict, type Gatehouse } from "../core/pipeline/gatehouse"
import { sendWebResponse } from "./convert"
import { warnUnreadIsAuthenticated } from "./origin-warnings"
import { ExpressPort } from "./port"
import type { GateOptions, GatehouseInstance, SignedInHandler, SignedInRequest } from "./types"

export type { GateOptions }

/**
 * Where the session Gatehouse read is kept for each request: what `req.isAuthenticated()` answers from (never
 * `req.auth`, which other middleware may write). A weak map, so nothing is added to the request object (a new property
 * on Express's request costs microseconds: its prototype was swapped, so V8 keeps it in dictionary mode), stored under
 * a registered symbol so every copy of the library (CommonJS and ESM side by side) shares it, like the prototype
 * method below.
 */
const SESSIONS_KEY = Symbol.for("gatehouse-auth.sessions")
const holder = globalThis as { [SESSIONS_KEY]?: WeakMap<object, Session | null> }
const readSessions: WeakMap<object, Session | null> = (holder[SESSIONS_KEY] ??= new WeakMap())

function isAuthenticated(this: object): boolean {
  const read = readSessions.get(this)
  // `null` is a read that found no session; `undefined`, no read at all (a development warning says why it is false).
  if (read === undefined) warnUnreadIsAuthenticated()
  return Boolean(read)
}

// The types promise `req.isAuthenticated()` on every request: it answers `false` until Gatehouse has read a session.
// Defined on Node's request prototype, as Passport does; Passport's definition is left alone, and one from another copy
// of this library is replaced by the copy loaded last (both answer from the same shared map).
const OURS = Symbol.for("gatehouse-auth.is-authenticated")
Object.defineProperty(isAuthenticated, OURS, { value: true })
const existing = (IncomingMessage.prototype as { isAuthenticated?: unknown }).isAuthenticated
if (typeof existing !== "function" || (existing as { [OURS]?: boolean })[OURS] === true) {
  Object.defineProperty(IncomingMessage.prototype, "isAuthenticated", {
    value: isAuthenticated,
    writable: true,
    configurable: true,
    enumerable: false,
  })
}

/**
 * Sets `req.auth`, `req.user`, `res.locals.session` and `req.isAuthenticated()` from the session Gatehouse read. They
 * stay ordinary writable properties (Passport and express-jwt write them too); Gatehouse never reads them back.
 *
 * @example
 * ```ts
 * attachSession(req, res, await identity.session(req, res))
 * ```
 */
export function attachSession(req: Request, res: ExpressResponse, session: Session | null): void {
  readSessions.set(req, session)
  res.locals.session = session
  req.auth = session
  req.user = session?.user ?? undefined
  // Passport's own isAuthenticated() is left in place when the app uses both.
  if (typeof (req as { isAuthenticated?: unknown }).isAuthenticated !== "function") {
    req.isAuthenticated = isAuthenticated as Request["isAuthenticated"]
  }
}

type Guarded = (
  options: GateOptions,
  then: (req: Request, res: ExpressResponse, next: NextFunction) => unknown,
) => RequestHandler

/**
 * The instance's `requireAuth` over its guard: `requireAuth(options?)`, `requireAuth(handler)` or
 * `requireAuth(options, handler)`, the handler seeing `req.user` as present.
 */
export function requireAuthOf(guarded: Guarded): GatehouseInstance["requireAuth"] {
  return ((...args: unknown[]) => {
    const handler = typeof args[args.length - 1] === "function" ? (args.pop() as SignedInHandler) : undefined
    const options = (args[0] ?? {}) as Omit<GateOptions, "requireSession">
    return guarded({ ...options, requireSession: true }, (req, res, next) =>
      handler ? handler(req as SignedInRequest, res, next) : next(),
    )
  }) as GatehouseInstance["requireAuth"]
}

/**
 * Runs the deny rule for `req`. Resolves `true` when the request may go on (`next()`); otherwise the answer was sent.
 * `authorized` decides on the path Express routes, folded by the app's routing settings. Throws an `HttpError` 400
 * when the request has no valid origin (a `Host` header `new URL()` rejects), or a path a URL parser would rewrite
 * (dot segments, raw or percent-encoded): Express routes such a path as it is spelled.
 *
 * @example
 * ```ts
 * if (await gate(gatehouse, req, res, { requireSession: true })) next()
 * ```
 */
export async function gate(
  gatehouse: Gatehouse,
  req: Request,
  res: ExpressResponse,
  options: GateOptions,
): Promise<boolean> {
  const port = new ExpressPort(req, res)
  const config = gatehouse.resolved(await gatehouse.runtime(req))
  const session = await gatehouse.session(port)
  attachSession(req, res, session)
  // `requireAuth`'s own `authorize` option, on a request the deny rule let through: without one (or without a
  // session) nothing more runs, and no further asynchronous step is taken.
  const authorizeOption = (): boolean | Promise<boolean> => {
    const authorize = options.authorize
    if (!session || !authorize) return true
    return Promise.resolve(authorize(session, req)).then((allowed) => {
      if (allowed) return true
      render(res, { kind: "deny", status: 403, json: wantsJson(port.headers()) })
      return false
    })
  }
  // Without an `authorized` callback a pass needs neither the URL nor a copy of the headers (the hot path).
  if (config.userAuthorized === undefined && (session || !options.requireSession)) return authorizeOption()

  const verdict = await gatehouse.decide(port, session, options)
  if (verdict.kind === "pass") return authorizeOption()
  if (verdict.kind === "response") {
    await sendWebResponse(verdict.response, res)
    return false
  }
  render(res, verdict)
  return false
}

function render(res: ExpressResponse, verdict: Extract<AccessVerdict, { kind: "deny" }>): void {
  if (verdict.location !== undefined) {
    res.redirect(302, verdict.location)
  } else if (verdict.status === 403) {
    res.status(403)
    if (verdict.json) res.json({ error: "Forbidden" })
    else res.type("text/plain").send("Forbidden")
  } else {
    if (verdict.challenge !== undefined) res.setHeader("WWW-Authenticate", verdict.challenge)
    res.status(401).json({ error: "Unauthorized" })
  }
}

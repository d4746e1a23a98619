/**
 * The one deny rule of the Express layer (`requireAuth`, `app.use(auth)`, `auth(handler)`): read the session, attach
 * it to the request, run `callbacks.authorized`, and answer 401 JSON, a 302 to sign-in, or 403 when access is denied.
 */
import { IncomingMessage } from "node:http"
import type { NextFunction, Request, RequestHandler, Response as ExpressResponse } from "express"
import type { Session } from "../core"
import { wantsJson, type AccessVerdict, type Gatehouse, type ResolvedConfig } from "../core/pipeline/gatehouse"
import { sendWebResponse } from "./convert"
import { warnUnreadIsAuthenticated } from "./origin-warnings"
import { ExpressPort } from "./port"
import type { GateOptions, GatehouseInstance, SignedInHandler, SignedInRequest } from "./types"

export type { GateOptions }

/**
 * What Gatehouse keeps for each Express request, in a weak map keyed by the request: the session it read (what
 * `req.isAuthenticated()` answers from, never `req.auth`, which other middleware may write) and the values of
 * `req.auth` and `req.user`. Nothing is added to the request object itself: a new property on Express's request costs
 * microseconds (its prototype was swapped, so V8 keeps it in dictionary mode). The map is stored under a registered
 * symbol so every copy of the library (CommonJS and ESM side by side) shares it, like the prototype members below.
 */
interface RequestFields {
  /** The session Gatehouse read: `null` when it found none, `undefined` when it has not read one. */
  read?: Session | null
  auth?: unknown
  user?: unknown
}
const FIELDS_KEY = Symbol.for("gatehouse-auth.request-fields")
const holder = globalThis as { [FIELDS_KEY]?: WeakMap<object, RequestFields> }
const fields: WeakMap<object, RequestFields> = (holder[FIELDS_KEY] ??= new WeakMap())

function fieldsOf(req: object): RequestFields {
  let known = fields.get(req)
  if (known === undefined) {
    known = {}
    fields.set(req, known)
  }
  return known
}

function isAuthenticated(this: object): boolean {
  const read = fields.get(this)?.read
  // `null` is a read that found no session; `undefined`, no read at all (a development warning says why it is false).
  if (read === undefined) warnUnreadIsAuthenticated()
  return Boolean(read)
}

// Defined on Node's request prototype, as Passport defines its request members, and marked so a copy of this library
// loaded later replaces ours (all copies answer from the same shared map) while anybody else's definition is left
// alone.
const OURS = Symbol.for("gatehouse-auth.request-member")
const prototype = IncomingMessage.prototype as unknown as Record<string, unknown>

function defineOnRequests(name: string, descriptor: PropertyDescriptor & ThisType<object>): void {
  const existing = Object.getOwnPropertyDescriptor(prototype, name)
  const mark = (existing?.value ?? existing?.get) as { [OURS]?: boolean } | undefined
  if (existing && mark?.[OURS] !== true) return
  for (const member of [descriptor.value, descriptor.get, descriptor.set]) {
    if (typeof member === "function") Object.defineProperty(member, OURS, { value: true })
  }
  Object.defineProperty(prototype, name, { ...descriptor, configurable: true, enumerable: false })
}

// The types promise `req.isAuthenticated()` on every request: it answers `false` until Gatehouse has read a session.
// Passport's own `isAuthenticated` is left in place when the app uses both.
defineOnRequests("isAuthenticated", { value: isAuthenticated, writable: true })

// `req.auth` and `req.user` read and assign as before (Passport and express-jwt assign them, and an own property defined
// on one request still wins), but their values live in the weak map: an accessor on the prototype, so assigning them
// adds no property to the request. What differs from a plain property: `delete req.user` leaves the value (assign
// `undefined` instead), and they are not own enumerable keys of the request.
for (const name of ["auth", "user"] as const) {
  defineOnRequests(name, {
    get(this: object) {
      return fields.get(this)?.[name]
    },
    set(this: object, value: unknown) {
      fieldsOf(this)[name] = value
    },
  })
}

/**
 * Sets `req.auth`, `req.user`, `res.locals.session` and `req.isAuthenticated()` from the session Gatehouse read. They
 * stay writable (Passport and express-jwt write them too); Gatehouse never reads them back.
 *
 * @example
 * ```ts
 * attachSession(req, res, await identity.session(req, res))
 * ```
 */
export function attachSession(req: Request, res: ExpressResponse, session: Session | null): void {
  fieldsOf(req).read = session
  res.locals.session = session
  req.auth = session
  req.user = session?.user ?? undefined
  // A request object that is not a Node request (a test double) gets the method as its own property.
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
export function gate(gatehouse: Gatehouse, req: Request, res: ExpressResponse, options: GateOptions): Promise<boolean> {
  try {
    // A fixed config's runtime is at hand: waiting for it anyway would cost the hot path a turn of the queue.
    const runtime = gatehouse.runtime(req)
    if (runtime instanceof Promise) {
      return runtime.then((rt) => gateWith(gatehouse, gatehouse.resolved(rt), req, res, options))
    }
    return gateWith(gatehouse, gatehouse.resolved(runtime), req, res, options)
  } catch (error) {
    return Promise.reject(error as Error)
  }
}

/** {@link gate} once the config is known: one wait (the session read) on the hot path, no more. */
function gateWith(
  gatehouse: Gatehouse,
  config: ResolvedConfig,
  req: Request,
  res: ExpressResponse,
  options: GateOptions,
): Promise<boolean> {
  const port = new ExpressPort(req, res)
  return gatehouse.session(port).then((session) => {
    attachSession(req, res, session)
    // Without an `authorized` callback a pass needs neither the URL nor a copy of the headers (the hot path), and
    // without `requireAuth`'s own `authorize` option (or a session for it to judge) nothing more runs.
    if (config.userAuthorized === undefined && (session || !options.requireSession)) {
      return passed(port, res, session, options)
    }
    return decided(gatehouse, port, res, session, options)
  })
}

/** The deny rule through the core (the `authorized` callback, or a request without the session it requires). */
async function decided(
  gatehouse: Gatehouse,
  port: ExpressPort,
  res: ExpressResponse,
  session: Session | null,
  options: GateOptions,
): Promise<boolean> {
  const verdict = await gatehouse.decide(port, session, options)
  if (verdict.kind === "pass") return passed(port, res, session, options)
  if (verdict.kind === "response") {
    await sendWebResponse(verdict.response, res)
    return false
  }
  render(res, verdict)
  return false
}

/** A request the deny rule let through: `true`, or what `requireAuth`'s own `authorize` option says of its session. */
function passed(
  port: ExpressPort,
  res: ExpressResponse,
  session: Session | null,
  options: GateOptions,
): boolean | Promise<boolean> {
  return session && options.authorize ? authorizeOption(port, res, session, options.authorize) : true
}

/** `requireAuth`'s own `authorize` option: 403 when it says no. */
async function authorizeOption(
  port: ExpressPort,
  res: ExpressResponse,
  session: Session,
  authorize: NonNullable<GateOptions["authorize"]>,
): Promise<boolean> {
  if (await authorize(session, port.native)) return true
  render(res, { kind: "deny", status: 403, json: wantsJson(port.headers()) })
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

/**
 * `Gatehouse(config)`, the Express flavour of the full-stack initializer: `handlers` to mount, `auth` in all its forms,
 * and server-side `signIn`, `signOut` and `unstable_update`, sharing one identity authority.
 */
import { AsyncLocalStorage } from "node:async_hooks"
import type { NextFunction, Request, RequestHandler, Response as ExpressResponse } from "express"
import { parseCookieHeader } from "../cookie-header"
import { handleAuthRequest } from "../core/pipeline/auth"
import type { ResolvedConfig } from "../core/kernel/config/types"
import {
  serverSignIn,
  serverSignOut,
  serverUpdate,
  type AuthorizationParams,
  type ServerCallRequest,
  type ServerCallResult,
  type SignInOptions,
  type SignOutOptions,
} from "../core/pipeline/server-calls"
import type { Session } from "../core/kernel/types"
import { serverSessionContext } from "../core/session"
import type { SessionContext } from "../core/session/types"
import { isSecureRequest } from "./origin"
import { deletePasskey, listPasskeys, renamePasskey, type PasskeyInfo } from "../core/methods/webauthn/manage"
import { MissingRequestContext } from "../errors"
import { resetAccountLimits } from "../core/kernel/rate-limit/enforce"
import { answerAuthRequest, clientIpOf, type ExpressAuthOptions } from "./answer"
import { sendSerialized, sendWebResponse } from "./convert"
import { attachSession, gate, type GateOptions } from "./guard"
import { createIdentity, type ExpressConfigInput, type Identity } from "./identity"
import { originOf } from "./origin"
import { createSessionManagement, type SessionManagement } from "./session-management"

export type { AuthorizationParams, ExpressAuthOptions, PasskeyInfo, SignInOptions, SignOutOptions }

/** A request as `auth(handler)` hands it over: the session read for it is on `req.auth`. */
export type AuthenticatedHandler = (
  req: Request & { auth: Session | null },
  res: ExpressResponse,
  next: NextFunction,
) => unknown

/** `handlers`: Express middleware serving every auth action under its mount path, plus a Fetch entry point. */
export type GatehouseHandlers = RequestHandler & {
  /** Answers a Web `Request` under the base path (`config.basePath`, else the recorded mount, else `/auth`). */
  fetch(request: Request | globalThis.Request): Promise<globalThis.Response>
}

/** `auth`: one function whose behaviour is chosen by its arguments (see the README's table). */
export interface GatehouseAuth {
  /** The session of the current request, inside the context `app.use(auth)` or `handlers` opened. */
  (): Promise<Session | null>
  /** Wraps a route handler: session read, `authorized` applied (a denial means the handler is not called). */
  (handler: AuthenticatedHandler): RequestHandler
  /** Middleware: attaches the session, opens the request context, applies `authorized`. */
  (req: Request, res: ExpressResponse, next: NextFunction): void
  /** Reads the session (memoised per request); a refreshed cookie is written to `res` (or `req.res`). */
  (req: Request, res?: ExpressResponse): Promise<Session | null>
}

export interface GatehouseSignIn {
  (
    req: Request,
    res: ExpressResponse,
    provider?: string,
    options?: SignInOptions,
    authorizationParams?: AuthorizationParams,
  ): Promise<string>
  (provider?: string, options?: SignInOptions, authorizationParams?: AuthorizationParams): Promise<string>
}

export interface GatehouseSignOut {
  (req: Request, res: ExpressResponse, options?: SignOutOptions): Promise<string>
  (options?: SignOutOptions): Promise<string>
}

export interface GatehouseUpdate {
  (req: Request, res: ExpressResponse, data: Partial<Session> | Record<string, unknown>): Promise<Session | null>
  (data: Partial<Session> | Record<string, unknown>): Promise<Session | null>
}

/** What `Gatehouse(config)` returns (Express flavour). */
export interface GatehouseInstance extends SessionManagement {
  handlers: GatehouseHandlers
  auth: GatehouseAuth
  signIn: GatehouseSignIn
  signOut: GatehouseSignOut
  unstable_update: GatehouseUpdate
  /** Alias of `unstable_update`. */
  updateSession: GatehouseUpdate
  /** Route protection: 401 JSON for API clients, 302 to sign-in for browsers, 403 when `authorize` says no. */
  requireAuth(options?: Omit<GateOptions, "requireSession">): RequestHandler
  /** The signed-in user's passkeys (never a public key or counter); `null` without a session. */
  listAuthenticators(req: Request): Promise<PasskeyInfo[] | null>
  /** Renames one of the user's passkeys (trimmed, 1-64 characters); a foreign id throws `NotFound` (status 404). */
  renameAuthenticator(req: Request, res: ExpressResponse, id: string, name: string): Promise<PasskeyInfo>
  /**
   * Deletes one of the user's passkeys and its account row. Throws `NotFound` (404), `SessionNotFresh` (403, sign-in
   * older than `session.freshAge`) or `LastCredential` (409).
   */
  deleteAuthenticator(req: Request, res: ExpressResponse, id: string): Promise<void>
  /**
   * Server-only: forgets the `credentials-account` counters (15-minute window and 24-hour cap) of an email address or
   * user name, e.g. from your password-reset flow, so its owner can sign in again at once.
   */
  resetRateLimit(options: { identifier: string }): Promise<void>
}

interface RequestScope {
  req: Request
  res: ExpressResponse
}

function isRequest(value: unknown): value is Request {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { headers?: unknown }).headers === "object" &&
    typeof (value as { method?: unknown }).method === "string"
  )
}

function httpError(error: unknown): Error & { status: number; statusCode: number } {
  const err = (error instanceof Error ? error : new Error(String(error))) as Error & {
    status?: number
    statusCode?: number
  }
  const status = err.status ?? err.statusCode ?? 500
  return Object.assign(err, { status, statusCode: status })
}

function appendCookies(res: ExpressResponse, cookies: string[], resolved: ResolvedConfig): void {
  if (cookies.length === 0) return
  if (res.headersSent) {
    resolved.logger.warn("session-cookie-not-written")
    return
  }
  const existing = res.getHeader("set-cookie")
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)]
  res.setHeader("set-cookie", [...list, ...cookies])
}

function callRequest(req: Request, resolved: ResolvedConfig): ServerCallRequest {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(":")) continue
    for (const item of Array.isArray(value) ? value : [value]) {
      try {
        headers.append(name, item)
      } catch {
        // a value Node accepted but the Fetch standard does not: not forwarded
      }
    }
  }
  return {
    method: req.method,
    headers,
    cookies: parseCookieHeader(req.headers.cookie),
    origin: originOf(req, resolved.authUrl),
    body: req.body as unknown,
    clientIp: clientIpOf(req, resolved),
  }
}

/**
 * Creates the Express flavour of the initializer from a config or a function of the request returning one.
 *
 * @example
 * ```ts
 * const { handlers, auth, signIn, signOut } = Gatehouse({ providers: [GitHub] })
 * app.use("/auth", handlers)
 * app.get("/me", auth((req, res) => res.json(req.auth)))
 * app.post("/logout", (req, res, next) => signOut(req, res, { redirectTo: "/" }).catch(next))
 * ```
 */
export function Gatehouse(config: ExpressConfigInput & Partial<ExpressAuthOptions>): GatehouseInstance {
  return createInstance(config, true)
}

/**
 * `withContext`: whether requests run inside an AsyncLocalStorage scope, which the argument-less forms (`auth()`,
 * `signIn(provider)`, ...) read. Only `Gatehouse(config)` hands those forms out; the instance behind `ExpressAuth`,
 * `getSession` and `requireAuth` never does, so it skips the scope: an enabled AsyncLocalStorage makes every promise
 * of the process pay for tracking, measurably on a protected route (bench/README.md).
 */
function createInstance(input: ExpressConfigInput, withContext: boolean): GatehouseInstance {
  const identity: Identity = createIdentity(input)
  const scope = new AsyncLocalStorage<RequestScope>()
  const inScope = <T>(req: Request, res: ExpressResponse, fn: () => T): T =>
    withContext ? scope.run({ req, res }, fn) : fn()

  const current = (what: string): RequestScope => {
    const store = scope.getStore()
    if (!store) {
      throw new MissingRequestContext(`${what}() without a request needs the context app.use(auth) or handlers open`)
    }
    return store
  }

  const handlers = function gatehouseHandlers(req: Request, res: ExpressResponse, next: NextFunction): void {
    const run = async () => {
      const runtime = await identity.runtime(req)
      const resolved = identity.mounted(req, runtime)
      const answer = await answerAuthRequest(req, resolved, runtime)
      if (answer instanceof globalThis.Response) await sendWebResponse(answer, res)
      else sendSerialized(answer, res)
    }
    void inScope(req, res, () =>
      run().catch((error: unknown) => {
        if (res.headersSent) {
          res.destroy(error instanceof Error ? error : undefined)
          return
        }
        next(httpError(error))
      }),
    )
  } as GatehouseHandlers
  handlers.fetch = async (request) => {
    const runtime = await identity.runtime(undefined)
    const resolved = identity.resolved(runtime)
    return (await handleAuthRequest(request as globalThis.Request, resolved, {
      sessionCache: runtime.sessionCache,
    })) as globalThis.Response
  }

  const guarded =
    (options: GateOptions, then: (req: Request, res: ExpressResponse, next: NextFunction) => unknown) =>
    (req: Request, res: ExpressResponse, next: NextFunction): void => {
      inScope(req, res, () => {
        gate(identity, req, res, options)
          .then((pass) => (pass ? then(req, res, next) : undefined))
          .catch(next)
      })
    }

  const auth = ((...args: unknown[]) => {
    if (args.length === 0) {
      const { req, res } = current("auth")
      return identity.session(req, res)
    }
    if (typeof args[0] === "function") {
      const handler = args[0] as AuthenticatedHandler
      return guarded({ requireSession: false }, (req, res, next) =>
        handler(req as Request & { auth: Session | null }, res, next),
      )
    }
    const [req, res, next] = args as [Request, ExpressResponse | undefined, NextFunction | undefined]
    if (typeof next === "function" && res) {
      guarded({ requireSession: false }, (_req, _res, go) => go())(req, res, next)
      return undefined
    }
    return identity.session(req, res).then((session) => {
      const target = res ?? req.res
      if (target) attachSession(req, target, session)
      return session
    })
  }) as GatehouseAuth

  const scoped = (args: unknown[], what: string): [Request, ExpressResponse, unknown[]] => {
    if (isRequest(args[0])) return [args[0], args[1] as ExpressResponse, args.slice(2)]
    const { req, res } = current(what)
    return [req, res, args]
  }

  const finish = (req: Request, res: ExpressResponse, result: ServerCallResult, resolved: ResolvedConfig) => {
    appendCookies(res, result.setCookies, resolved)
    if (result.redirect && !res.headersSent) {
      res.redirect(req.method === "GET" || req.method === "HEAD" ? 302 : 303, result.url)
    }
    return result.url
  }

  const signIn = (async (...args: unknown[]) => {
    const [req, res, rest] = scoped(args, "signIn")
    const runtime = await identity.runtime(req)
    const resolved = identity.resolved(runtime)
    const [provider, options, authorizationParams] = rest as [string?, SignInOptions?, AuthorizationParams?]
    const result = await serverSignIn(
      { resolved, sessionCache: runtime.sessionCache },
      callRequest(req, resolved),
      provider,
      options,
      authorizationParams,
    )
    return finish(req, res, result, resolved)
  }) as GatehouseSignIn

  const signOut = (async (...args: unknown[]) => {
    const [req, res, rest] = scoped(args, "signOut")
    const runtime = await identity.runtime(req)
    const resolved = identity.resolved(runtime)
    const result = await serverSignOut(
      { resolved, sessionCache: runtime.sessionCache },
      callRequest(req, resolved),
      rest[0] as SignOutOptions | undefined,
    )
    return finish(req, res, result, resolved)
  }) as GatehouseSignOut

  const unstable_update = (async (...args: unknown[]) => {
    const [req, res, rest] = scoped(args, "unstable_update")
    const runtime = await identity.runtime(req)
    const resolved = identity.resolved(runtime)
    const { session, setCookies } = await serverUpdate(
      { resolved, sessionCache: runtime.sessionCache },
      callRequest(req, resolved),
      rest[0],
    )
    appendCookies(res, setCookies, resolved)
    return session
  }) as GatehouseUpdate

  const management = async (req: Request): Promise<SessionContext> => {
    const runtime = await identity.runtime(req)
    const resolved = identity.resolved(runtime)
    return serverSessionContext(
      resolved,
      { secure: isSecureRequest(req, resolved.authUrl), cookie: req.headers.cookie },
      { sessionCache: runtime.sessionCache },
    )
  }
  const listAuthenticators = async (req: Request) => listPasskeys(await management(req))
  const renameAuthenticator = async (req: Request, _res: ExpressResponse, id: string, name: string) =>
    renamePasskey(await management(req), id, name)
  const deleteAuthenticator = async (req: Request, _res: ExpressResponse, id: string) =>
    deletePasskey(await management(req), id)

  const requireAuth = (options: Omit<GateOptions, "requireSession"> = {}): RequestHandler =>
    guarded({ ...options, requireSession: true }, (_req, _res, next) => next())

  return {
    handlers,
    auth,
    signIn,
    signOut,
    unstable_update,
    updateSession: unstable_update,
    requireAuth,
    listAuthenticators,
    renameAuthenticator,
    deleteAuthenticator,
    resetRateLimit: async ({ identifier }) =>
      resetAccountLimits(identity.resolved(await identity.runtime(undefined)), identifier),
    ...createSessionManagement(identity, appendCookies),
  }
}

const byConfig = new WeakMap<object, GatehouseInstance>()

/**
 * The instance `ExpressAuth(config)`, `getSession(req, config)` and `requireAuth(config)` share for one config object:
 * one resolved config, one origin rule, one recorded mount path.
 *
 * @example
 * ```ts
 * instanceFor(config).auth(req) // what getSession(req, config) does
 * ```
 */
export function instanceFor(config: ExpressConfigInput): GatehouseInstance {
  let instance = byConfig.get(config)
  if (!instance) {
    instance = createInstance(config, false)
    byConfig.set(config, instance)
  }
  return instance
}

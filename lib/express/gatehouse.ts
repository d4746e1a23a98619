/**
 * `Gatehouse(config)`, the Express flavour: the core's Gatehouse object in Express's shapes (`(req, res, next)`
 * middleware, the `auth` overloads, `requireAuth`, `(req, res, ...)` server calls). Behaviour lives in the core.
 */
import { AsyncLocalStorage } from "node:async_hooks"
import type { NextFunction, Request, Response as ExpressResponse } from "express"
import type { Session } from "../core"
import { createGatehouse, type ServerCallResult } from "../core/pipeline/gatehouse"
import { MissingRequestContext } from "../errors"
import { attachSession, gate, requireAuthOf } from "./guard"
import { authHandlers } from "./handlers"
import { featureMembers } from "./features"
import { ExpressPort, isExpressRequest, writeServerCall } from "./port"
import type * as T from "./types"

export type * from "./types"

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
export function Gatehouse(config: T.ExpressConfigInput & Partial<T.ExpressAuthOptions>): T.GatehouseInstance {
  return createInstance(config, true)
}

/**
 * `withContext`: whether requests run inside an AsyncLocalStorage scope, which the argument-less forms (`auth()`,
 * `signIn(provider)`, ...) read. Only `Gatehouse(config)` hands those forms out; the instance behind `ExpressAuth`,
 * `getSession` and `requireAuth` skips the scope: an enabled AsyncLocalStorage makes every promise of the process pay
 * for tracking, measurably on a protected route (bench/README.md).
 */
function createInstance(input: T.ExpressConfigInput, withContext: boolean): T.GatehouseInstance {
  const core = createGatehouse(input as never)
  const scope = new AsyncLocalStorage<{ req: Request; res: ExpressResponse }>()
  const inScope = <R>(req: Request, res: ExpressResponse, fn: () => R): R =>
    withContext ? scope.run({ req, res }, fn) : fn()
  const current = (what: string) => {
    const store = scope.getStore()
    if (store) return store
    throw new MissingRequestContext(`${what}() without a request needs the context app.use(auth) or handlers open`)
  }
  /** `(req, res, ...rest)`, or `(...rest)` inside the request context. */
  const scoped = (args: unknown[], what: string): [Request, ExpressResponse, unknown[]] => {
    if (isExpressRequest(args[0])) return [args[0], args[1] as ExpressResponse, args.slice(2)]
    const { req, res } = current(what)
    return [req, res, args]
  }

  const handlers = authHandlers(core, inScope)
  const guarded =
    (options: T.GateOptions, then: (req: Request, res: ExpressResponse, next: NextFunction) => unknown) =>
    (req: Request, res: ExpressResponse, next: NextFunction): void =>
      inScope(req, res, () => {
        gate(core, req, res, options)
          .then((pass) => (pass ? then(req, res, next) : undefined))
          .catch(next)
      })
  const auth = ((...args: unknown[]) => {
    if (args.length === 0) {
      const { req, res } = current("auth")
      return core.session(new ExpressPort(req, res))
    }
    if (typeof args[0] === "function") {
      const handler = args[0] as T.AuthenticatedHandler
      return guarded({}, (req, res, next) => handler(req as Request & { auth: Session | null }, res, next))
    }
    const [req, res, next] = args as [Request, ExpressResponse | undefined, NextFunction | undefined]
    if (typeof next === "function" && res) return guarded({}, (_req, _res, go) => go())(req, res, next)
    return core.session(new ExpressPort(req, res)).then((session) => {
      const target = res ?? req.res
      if (target) attachSession(req, target, session)
      return session
    })
  }) as T.GatehouseAuth

  const finish = async (req: Request, res: ExpressResponse, result: ServerCallResult) =>
    writeServerCall(req, res, result, core.resolved(await core.runtime(req)))
  const call =
    <A extends unknown[], R>(
      what: string,
      run: (port: ExpressPort, req: Request, res: ExpressResponse, ...rest: A) => Promise<R>,
    ) =>
    (...args: unknown[]): Promise<R> => {
      const [req, res, rest] = scoped(args, what)
      return run(new ExpressPort(req, res), req, res, ...(rest as A))
    }
  const update = call("unstable_update", (p, _req, _res, data: unknown) => core.update(p, data)) as T.GatehouseUpdate
  const port = (req: Request, res?: ExpressResponse) => new ExpressPort(req, res)

  return {
    handlers,
    auth,
    signIn: call(
      "signIn",
      async (p, req, res, provider?: string, options?: T.SignInOptions, params?: T.AuthorizationParams) =>
        finish(req, res, await core.signIn(p, provider, options, params)),
    ) as T.GatehouseSignIn,
    signOut: call("signOut", async (p, req, res, options?: T.SignOutOptions) =>
      finish(req, res, await core.signOut(p, options)),
    ) as T.GatehouseSignOut,
    unstable_update: update,
    updateSession: update,
    requireAuth: requireAuthOf(guarded),
    listAuthenticators: (req) => core.listAuthenticators(port(req)),
    renameAuthenticator: (req, res, id, name) => core.renameAuthenticator(port(req, res), id, name),
    deleteAuthenticator: (req, res, id) => core.deleteAuthenticator(port(req, res), id),
    listSessions: (req, res) => core.listSessions(port(req, res)),
    revokeSession: (req, res, id) => core.revokeSession(port(req, res), id),
    revokeOtherSessions: (req, res) => core.revokeOtherSessions(port(req, res)),
    revokeAllSessions: (req, res) => core.revokeAllSessions(port(req, res)),
    isSessionFresh: (req) => core.isSessionFresh(port(req)),
    getAccessToken: (req, res, provider, options) => core.getAccessToken(port(req, res), provider, options),
    revokeUserSessions: (userId) => core.revokeUserSessions(userId),
    deleteUser: (userId) => core.deleteUser(userId),
    resetRateLimit: (options) => core.resetRateLimit(options),
    ...featureMembers(core, port),
  }
}

const byConfig = new WeakMap<object, T.GatehouseInstance>()

/**
 * The instance `ExpressAuth(config)`, `getSession(req, config)` and `requireAuth(config)` share for one config object:
 * one resolved config, one origin rule, one recorded mount path.
 *
 * @example
 * ```ts
 * instanceFor(config).auth(req) // what getSession(req, config) does
 * ```
 */
export function instanceFor(config: T.ExpressConfigInput): T.GatehouseInstance {
  let instance = byConfig.get(config)
  if (!instance) {
    instance = createInstance(config, false)
    byConfig.set(config, instance)
  }
  return instance
}

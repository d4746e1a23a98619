/**
 * `Gatehouse(config)`, the Fetch flavour (`gatehouse-auth/web`): the core's Gatehouse object for runtimes that speak Web
 * `Request`/`Response` (Hono, `node:http` through the converters, Bun, Deno, file-routed frameworks).
 */
import { AsyncLocalStorage } from "node:async_hooks"
import { createGatehouse, passwordMembers } from "../core/pipeline/gatehouse"
import { MissingRequestContext } from "../errors"
import { webAccountMembers } from "./accounts"
import { denial, serverCallAnswer, webPorts } from "./port"
import { webTwoFactor } from "./two-factor"
import type { PasswordServerFunctions, WebAuth, WebConfigInput, WebGatehouse, WebHandler } from "./types"

export type * from "./types"

/**
 * Creates the Fetch flavour of the initializer. The base path is `config.basePath`, else `/auth`.
 *
 * @example
 * ```ts
 * import { Gatehouse } from "gatehouse-auth/web"
 * const { handle, auth, applyCookies } = Gatehouse({ providers: [GitHub] })
 * const response = (await handle(request)) ?? applyCookies(request, await app(request, await auth(request)))
 * ```
 */
export function Gatehouse(config: WebConfigInput): WebGatehouse {
  const core = createGatehouse(config as never)
  const scope = new AsyncLocalStorage<Request>()
  const { portOf, applyCookies } = webPorts()
  const serve = async (request: Request): Promise<Response> => {
    const runtime = await core.runtime(request)
    const answer = await core.handle(portOf(request), runtime, runtime.resolved)
    return answer instanceof Response
      ? answer
      : new Response(answer.body, { status: answer.status, headers: answer.headers as [string, string][] })
  }
  const wrap =
    <A extends unknown[]>(handler: WebHandler<A>) =>
    (request: Request, ...rest: A): Promise<Response> =>
      scope.run(request, async () => {
        const port = portOf(request)
        const session = await core.session(port)
        const verdict = await core.decide(port, session)
        const response =
          verdict.kind === "pass"
            ? ((await handler(Object.assign(request, { auth: session }), ...rest)) ??
              new Response(null, { status: 204 }))
            : denial(verdict)
        return applyCookies(request, response)
      })
  const auth = ((arg?: Request | WebHandler) => {
    if (typeof arg === "function") return wrap(arg)
    const request = arg ?? scope.getStore()
    if (!request) throw new MissingRequestContext("auth() without a request needs runWithRequest(request, fn)")
    return core.session(portOf(request))
  }) as WebAuth
  const update = (request: Request, data: unknown) => core.update(portOf(request), data)
  return {
    handlers: { GET: (request) => scope.run(request, () => serve(request)), POST: (r) => scope.run(r, () => serve(r)) },
    async handle(request) {
      const base = (await core.runtime(request)).resolved.basePath.toLowerCase()
      const pathname = new URL(request.url).pathname.toLowerCase()
      if (pathname !== base && !pathname.startsWith(`${base}/`)) return undefined
      return scope.run(request, () => serve(request))
    },
    auth,
    applyCookies,
    signIn: async (request, provider, options, params) =>
      serverCallAnswer(request, await core.signIn(portOf(request), provider, options, params)),
    signOut: async (request, options) => serverCallAnswer(request, await core.signOut(portOf(request), options)),
    unstable_update: update,
    updateSession: update,
    runWithRequest: (request, fn) => scope.run(request, fn),
    listAuthenticators: (request) => core.listAuthenticators(portOf(request)),
    renameAuthenticator: (request, id, name) => core.renameAuthenticator(portOf(request), id, name),
    deleteAuthenticator: (request, id) => core.deleteAuthenticator(portOf(request), id),
    listSessions: (request) => core.listSessions(portOf(request)),
    revokeSession: (request, id) => core.revokeSession(portOf(request), id),
    revokeOtherSessions: (request) => core.revokeOtherSessions(portOf(request)),
    revokeAllSessions: (request) => core.revokeAllSessions(portOf(request)),
    isSessionFresh: (request) => core.isSessionFresh(portOf(request)),
    getAccessToken: (request, provider, options) => core.getAccessToken(portOf(request), provider, options),
    issueAccessToken: (request, input) => core.issueAccessToken(portOf(request), input),
    rotateAccessTokenKeys: () => core.rotateAccessTokenKeys(),
    revokeUserSessions: (userId) => core.revokeUserSessions(userId),
    deleteUser: (userId) => core.deleteUser(userId),
    resetRateLimit: (options) => core.resetRateLimit(options),
    ...webTwoFactor(core, portOf),
    ...(passwordMembers(
      (m) => (request: Request, input: object) => core.password(portOf(request), m, { ...input }),
    ) as PasswordServerFunctions<[Request]>),
    ...webAccountMembers(core.accounts, portOf),
  }
}

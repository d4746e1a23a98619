/**
 * `Gatehouse(config)`, the Fetch flavour (`gatehouse-auth/web`): for runtimes that speak Web `Request`/`Response`
 * (Hono, `node:http` through the converters, Bun, Deno, file-routed frameworks).
 */
import { AsyncLocalStorage } from "node:async_hooks"
import { parseCookieHeader } from "../cookie-header"
import { decideAccess } from "../core/pipeline/access"
import { handleAuthRequest } from "../core/pipeline/auth"
import { createConfigRuntime, createRuntimeCache, type ConfigRuntime } from "../core/pipeline/gatehouse"
import { getSessionState, serverSessionContext } from "../core/session"
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
import type { AuthConfig, Awaitable, Session } from "../core/kernel/types"
import { MissingRequestContext } from "../errors"
import { createWebSessionManagement, type WebSessionManagement } from "./session-management"
import { resetAccountLimits } from "../core/kernel/rate-limit/enforce"
import type { SessionContext } from "../core/session/types"
import { deletePasskey, listPasskeys, renamePasskey, type PasskeyInfo } from "../core/methods/webauthn/manage"

export type { AuthorizationParams, PasskeyInfo, SignInOptions, SignOutOptions }

/** A config, or a function of the request returning one (called per request; cached by returned object). */
export type WebConfigInput = AuthConfig | ((request: Request | undefined) => Awaitable<AuthConfig>)

/** A handler `auth(handler)` wraps: it sees the session read for the request. */
export type WebHandler<A extends unknown[] = unknown[]> = (
  request: Request & { auth: Session | null },
  ...rest: A
) => Awaitable<Response | null | undefined | void>

export interface WebAuth {
  /** The session of the current request, inside `runWithRequest(request, fn)`. */
  (): Promise<Session | null>
  /** Reads the session (memoised per request); a refreshed cookie is queued for `applyCookies(request, response)`. */
  (request: Request): Promise<Session | null>
  /** Wraps a handler: session read, `authorized` applied (a denial means the handler is not called), cookies applied. */
  <A extends unknown[]>(handler: WebHandler<A>): (request: Request, ...rest: A) => Promise<Response>
}

/** What `Gatehouse(config)` from `gatehouse-auth/web` returns. */
export interface WebGatehouse extends WebSessionManagement {
  handlers: { GET(request: Request): Promise<Response>; POST(request: Request): Promise<Response> }
  /** Answers a request under the base path; `undefined` for any other path (let the app answer it). */
  handle(request: Request): Promise<Response | undefined>
  auth: WebAuth
  /** Returns `response` with the cookies queued for `request` (a refreshed or updated session) appended. */
  applyCookies(request: Request, response: Response): Response
  signIn(
    request: Request,
    provider?: string,
    options?: SignInOptions,
    authorizationParams?: AuthorizationParams,
  ): Promise<Response>
  signOut(request: Request, options?: SignOutOptions): Promise<Response>
  unstable_update(request: Request, data: Partial<Session> | Record<string, unknown>): Promise<Session | null>
  /** Alias of `unstable_update`. */
  updateSession(request: Request, data: Partial<Session> | Record<string, unknown>): Promise<Session | null>
  /** Runs `fn` with `request` as the current request, so `auth()` works inside it. */
  runWithRequest<T>(request: Request, fn: () => T): T
  /** The signed-in user's passkeys (never a public key or counter); `null` without a session. */
  listAuthenticators(request: Request): Promise<PasskeyInfo[] | null>
  /** Server-only: forgets the `credentials-account` counters of an email address or user name (password reset). */
  resetRateLimit(options: { identifier: string }): Promise<void>
  /** Renames one of the user's passkeys (trimmed, 1-64 characters); a foreign id throws `NotFound` (status 404). */
  renameAuthenticator(request: Request, id: string, name: string): Promise<PasskeyInfo>
  /** Deletes one of the user's passkeys; throws `NotFound` (404), `SessionNotFresh` (403) or `LastCredential` (409). */
  deleteAuthenticator(request: Request, id: string): Promise<void>
}

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
  const fixed = typeof config === "function" ? undefined : createConfigRuntime(config)
  const lazy = typeof config === "function" ? config : undefined
  const runtimes = createRuntimeCache()
  const scope = new AsyncLocalStorage<Request>()
  const sessions = new WeakMap<Request, Promise<Session | null>>()
  const queued = new WeakMap<Request, string[]>()

  const runtimeFor = async (request: Request | undefined): Promise<ConfigRuntime> =>
    fixed ?? runtimes.get(await lazy!(request))
  const originOf = (runtime: ConfigRuntime, request: Request): string =>
    runtime.resolved.authUrl?.origin ?? new URL(request.url).origin
  const queue = (request: Request, cookies: string[]) => {
    if (cookies.length > 0) queued.set(request, [...(queued.get(request) ?? []), ...cookies])
  }

  const serve = async (request: Request): Promise<Response> => {
    const runtime = await runtimeFor(request)
    const response = await handleAuthRequest(request, runtime.resolved, { sessionCache: runtime.sessionCache })
    return response as Response
  }

  const handle = async (request: Request): Promise<Response | undefined> => {
    const runtime = await runtimeFor(request)
    const base = runtime.resolved.basePath.toLowerCase()
    const pathname = new URL(request.url).pathname.toLowerCase()
    if (pathname !== base && !pathname.startsWith(`${base}/`)) return undefined
    return scope.run(request, () => serve(request))
  }

  const readSession = (request: Request): Promise<Session | null> => {
    let pending = sessions.get(request)
    if (!pending) {
      pending = (async () => {
        const runtime = await runtimeFor(request)
        const { resolved } = runtime
        const secure = (resolved.authUrl ?? new URL(request.url)).protocol === "https:"
        const state = await getSessionState(
          resolved,
          { secure, cookie: request.headers.get("cookie") },
          { sessionCache: runtime.sessionCache },
        )
        queue(request, state.setCookies)
        return state.session
      })()
      sessions.set(request, pending)
    }
    return pending
  }

  const applyCookies = (request: Request, response: Response): Response => {
    const cookies = queued.get(request)
    if (!cookies || cookies.length === 0) return response
    queued.delete(request)
    try {
      for (const cookie of cookies) response.headers.append("set-cookie", cookie)
      return response
    } catch {
      // Immutable headers (a `Response.redirect()` or a fetched response): answer with a copy.
      const headers = new Headers(response.headers)
      for (const cookie of cookies) headers.append("set-cookie", cookie)
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
    }
  }

  const wrap =
    <A extends unknown[]>(handler: WebHandler<A>) =>
    async (request: Request, ...rest: A): Promise<Response> =>
      scope.run(request, async () => {
        const runtime = await runtimeFor(request)
        const { resolved } = runtime
        const session = await readSession(request)
        const url = new URL(
          `${originOf(runtime, request)}${new URL(request.url).pathname}${new URL(request.url).search}`,
        )
        const verdict = await decideAccess(resolved, session, { url, method: request.method, headers: request.headers })
        let response: Response
        if (verdict.kind === "pass") {
          const withAuth = Object.assign(request, { auth: session })
          response = (await handler(withAuth, ...rest)) ?? new Response(null, { status: 204 })
        } else if (verdict.kind === "response") {
          response = verdict.response
        } else if (verdict.location !== undefined) {
          response = new Response(null, { status: 302, headers: { Location: verdict.location } })
        } else if (verdict.status === 403) {
          response = verdict.json
            ? Response.json({ error: "Forbidden" }, { status: 403 })
            : new Response("Forbidden", { status: 403, headers: { "Content-Type": "text/plain" } })
        } else {
          response = Response.json({ error: "Unauthorized" }, { status: 401 })
        }
        return applyCookies(request, response)
      })

  const auth = ((arg?: Request | WebHandler) => {
    if (arg === undefined) {
      const request = scope.getStore()
      if (!request) throw new MissingRequestContext("auth() without a request needs runWithRequest(request, fn)")
      return readSession(request)
    }
    if (typeof arg === "function") return wrap(arg)
    return readSession(arg)
  }) as WebAuth

  const callRequest = (runtime: ConfigRuntime, request: Request): ServerCallRequest => ({
    method: request.method,
    headers: request.headers,
    cookies: parseCookieHeader(request.headers.get("cookie")),
    origin: originOf(runtime, request),
  })

  const answer = (request: Request, result: ServerCallResult): Response => {
    const headers = new Headers()
    for (const cookie of result.setCookies) headers.append("set-cookie", cookie)
    if (!result.redirect) {
      headers.set("Content-Type", "application/json")
      return new Response(JSON.stringify({ url: result.url }), { status: 200, headers })
    }
    headers.set("Location", result.url)
    const method = request.method.toUpperCase()
    return new Response(null, { status: method === "GET" || method === "HEAD" ? 302 : 303, headers })
  }

  const update = async (request: Request, data: unknown): Promise<Session | null> => {
    const runtime = await runtimeFor(request)
    const target = { resolved: runtime.resolved, sessionCache: runtime.sessionCache }
    const { session, setCookies } = await serverUpdate(target, callRequest(runtime, request), data)
    queue(request, setCookies)
    return session
  }

  const management = async (request: Request): Promise<SessionContext> => {
    const runtime = await runtimeFor(request)
    const { resolved } = runtime
    return serverSessionContext(
      resolved,
      {
        secure: (resolved.authUrl ?? new URL(request.url)).protocol === "https:",
        cookie: request.headers.get("cookie"),
      },
      { sessionCache: runtime.sessionCache },
    )
  }

  return {
    handlers: { GET: (request) => scope.run(request, () => serve(request)), POST: (r) => scope.run(r, () => serve(r)) },
    handle,
    auth,
    applyCookies,
    async signIn(request, provider, options, authorizationParams) {
      const runtime = await runtimeFor(request)
      const target = { resolved: runtime.resolved, sessionCache: runtime.sessionCache }
      const call = callRequest(runtime, request)
      return answer(request, await serverSignIn(target, call, provider, options, authorizationParams))
    },
    async signOut(request, options) {
      const runtime = await runtimeFor(request)
      const target = { resolved: runtime.resolved, sessionCache: runtime.sessionCache }
      return answer(request, await serverSignOut(target, callRequest(runtime, request), options))
    },
    unstable_update: update,
    updateSession: update,
    runWithRequest: (request, fn) => scope.run(request, fn),
    ...createWebSessionManagement(runtimeFor, queue),
    listAuthenticators: async (request) => listPasskeys(await management(request)),
    renameAuthenticator: async (request, id, name) => renamePasskey(await management(request), id, name),
    deleteAuthenticator: async (request, id) => deletePasskey(await management(request), id),
    resetRateLimit: async ({ identifier }) => resetAccountLimits((await runtimeFor(undefined)).resolved, identifier),
  }
}

/**
 * `createGatehouse(input)`: the one object per config that every framework edge wraps. It owns each member once (the
 * auth routes, the session read, access decisions, server-side sign-in, sign-out and update, passkey and session
 * management, refresh, rate-limit reset), the lazy-config cache, the mount record and the per-request memory. An edge
 * only turns its native request into a {@link RequestPort} and writes the answer back.
 */
import { parseCookieHeader } from "../../cookie-header"
import type { ResolvedConfig } from "../kernel/config/types"
import { routeBodyLimit } from "../kernel/request"
import type { SerializedResult } from "../kernel/response"
import type { AuthConfig, Awaitable, Session } from "../kernel/types"
import { readServerSession, serverSessionContext } from "../session"
import type { PrincipalMemo, SessionContext } from "../session/types"
import { reissuedTokenHeaders } from "../session/session-route"
import { carriedBearer } from "../kernel/bearer"
import type { AccessTokenRequest, IssuedAccessToken } from "./token-members"
import { decideAccess, type AccessOptions, type AccessVerdict, type PathRouting } from "./access"
import { accountMembers, type AccountMembers } from "./accounts"
import { answerRequest, answerWebRequest, serialized } from "./auth"
import { cookielessSessionRead } from "./cookieless-read"
import { createMountRecord } from "./mount"
import { sourceOf, type Mount, type ReadOptions, type RequestPort, type RequestRead } from "./port"
import { createConfigRuntime, createRuntimeCache, type ConfigRuntime } from "./runtime"
import {
  sessionMembers,
  type AccessTokenResult,
  type GetAccessTokenOptions,
  type PasskeyInfo,
  type SessionInfo,
  type SessionMembers,
} from "./session-members"
import { twoFactorMembers, type TotpEnrolment, type TwoFactorMembers, type TwoFactorStatus } from "./two-factor-members"
import { passwordCall, type PasswordInput, type PasswordMember } from "./password-calls"
import {
  serverSignIn,
  serverSignOut,
  serverUpdate,
  type AuthorizationParams,
  type ServerCallRequest,
  type ServerCallResult,
  type SignInOptions,
  type SignOutOptions,
} from "./server-calls"

export type { AuthorizationParams, PasskeyInfo, ServerCallResult, SessionInfo, SignInOptions, SignOutOptions }
export type { AccessOptions, AccessVerdict, AccessTokenResult, GetAccessTokenOptions, ConfigRuntime, ResolvedConfig }
export type { PathRouting, AccessTokenRequest, IssuedAccessToken, TotpEnrolment, TwoFactorStatus, AccountMembers }
export type { TwoFactorMembers, SessionMembers, Mount, ReadOptions, RequestPort, RequestRead }
export type { ServerOnlyAccountMember } from "./accounts"
export { SERVER_ONLY_ACCOUNT_MEMBERS } from "./accounts"
export { TWO_FACTOR_MEMBERS } from "./two-factor-members"
// What the edges need of the core beyond this object, so they import nothing else of it.
export { wantsJson } from "./access"
export { isRoute, providerActions } from "../kernel/routes"
export { passwordMembers, type PasswordInput, type PasswordMember } from "./password-calls"

/** A config, or a function of the native request returning one (called per request; cached by returned object). */
export type GatehouseInput<Native = unknown> = AuthConfig | ((request: Native | undefined) => Awaitable<AuthConfig>)

/** A bearer session re-issued by a server-side read goes out in `X-Auth-Token` (tokens.md T1.3), not a cookie. */
function sendReissuedToken(port: RequestPort, ctx: SessionContext): void {
  const headers = reissuedTokenHeaders(ctx)
  if (headers["X-Auth-Token"] !== undefined) port.setHeaders?.(headers)
}

/** The Gatehouse object of one config (or lazy config function). */
export interface Gatehouse extends TwoFactorMembers<RequestPort>, SessionMembers<RequestPort> {
  /** The runtime of the config serving `native` (a lazy config function is called with it). */
  runtime(native?: object): ConfigRuntime | Promise<ConfigRuntime>
  /**
   * The config server-side calls use: under `config.basePath` when set, else the mount path the auth routes recorded
   * on their first request, else `AUTH_URL`'s path, else `/auth`.
   */
  resolved(runtime: ConfigRuntime): ResolvedConfig
  /** The config for a request that reached the auth routes: the first mount wins; another base is an error. */
  mounted(runtime: ConfigRuntime, mount: Mount): ResolvedConfig
  /** Answers a request under the auth routes (a cookie-less session read from the runtime's kept answer). */
  handle(port: RequestPort, runtime: ConfigRuntime, config: ResolvedConfig): Promise<Response | SerializedResult>
  /** Answers a Web `Request` under the base path of {@link resolved}. */
  fetch(request: Request): Promise<Response>
  /** The session of the request, read once per request; a refreshed cookie goes through `port.setCookies`. */
  session(port: RequestPort): Promise<Session | null>
  /** `callbacks.authorized` and `requireSession` for a request whose session was read. */
  decide(port: RequestPort, session: Session | null, options?: AccessOptions): Promise<AccessVerdict>
  signIn(
    port: RequestPort,
    provider?: string,
    options?: SignInOptions,
    authorizationParams?: AuthorizationParams,
  ): Promise<ServerCallResult>
  signOut(port: RequestPort, options?: SignOutOptions): Promise<ServerCallResult>
  update(port: RequestPort, data: unknown): Promise<Session | null>
  /** A server function of the Password provider (`signUp`, `changePassword`, ...); its cookies go through the port. */
  password(port: RequestPort, member: PasswordMember, input?: PasswordInput): Promise<{ ok: true }>
  /** Account self-service, administration and the audit trail (accounts.md), mapped by name by the edges. */
  accounts: AccountMembers<RequestPort>
}

/** What the core remembers of one request: its session read and who is signed in. */
interface RequestMemory {
  session?: Promise<Session | null>
  principal: PrincipalMemo
}

/**
 * Creates the Gatehouse object of a config, or of a function of the native request returning one. A static config
 * is resolved now, so a bad one throws here.
 *
 * @example
 * ```ts
 * const gatehouse = createGatehouse(config)
 * const session = await gatehouse.session(portOf(req, res))
 * ```
 */
export function createGatehouse(input: GatehouseInput<never>): Gatehouse {
  const fixed = typeof input === "function" ? undefined : createConfigRuntime(input)
  const lazy =
    typeof input === "function" ? (input as (request: object | undefined) => Awaitable<AuthConfig>) : undefined
  const cache = createRuntimeCache()
  const { resolved, mounted } = createMountRecord()
  const memory = new WeakMap<object, RequestMemory>()

  const memoryOf = (native: object): RequestMemory => {
    let known = memory.get(native)
    if (!known) {
      known = { principal: {} }
      memory.set(native, known)
    }
    return known
  }

  const runtime = (native?: object): ConfigRuntime | Promise<ConfigRuntime> => {
    if (fixed) return fixed
    // A throwing config function rejects, as before: never a synchronous throw out of a member.
    return Promise.resolve()
      .then(() => lazy!(native))
      .then((config) => cache.get(config))
  }

  /** The session context of a server-side call on `port`, sharing the request's memory of who is signed in. */
  const contextOf = (port: RequestPort, rt: ConfigRuntime, config: ResolvedConfig): SessionContext => {
    return serverSessionContext(
      config,
      {
        secure: port.https,
        cookie: port.cookie,
        userAgent: port.userAgent,
        clientIp: () => port.clientIp(config) ?? null,
        bearer: config.session.bearer ? carriedBearer(port.headers()) : undefined,
      },
      { sessionCache: rt.sessionCache, memo: memoryOf(port.native).principal },
    )
  }

  /** Runs `fn` on the session context of `port`; the cookies it set go out through the port, even when it throws. */
  const withSession = async <T>(
    port: RequestPort,
    fn: (ctx: SessionContext, rt: ConfigRuntime) => Promise<T>,
  ): Promise<T> => {
    const rt = await runtime(port.native)
    const config = resolved(rt)
    const ctx = contextOf(port, rt, config)
    try {
      return await fn(ctx, rt)
    } finally {
      port.setCookies(ctx.jar.toHeaders(), config)
      sendReissuedToken(port, ctx)
    }
  }

  const readSession = async (port: RequestPort, rt: ConfigRuntime): Promise<Session | null> => {
    const config = resolved(rt)
    const ctx = contextOf(port, rt, config)
    const session = await readServerSession(ctx)
    port.setCookies(ctx.jar.toHeaders(), config)
    sendReissuedToken(port, ctx)
    return session
  }

  const callRequest = (port: RequestPort, config: ResolvedConfig): ServerCallRequest => {
    const clientIp = port.clientIp(config)
    return {
      method: port.method,
      headers: port.headers(),
      cookies: parseCookieHeader(port.cookie),
      origin: config.authUrl?.origin ?? port.origin(),
      body: port.body,
      ...(clientIp !== undefined ? { clientIp } : {}),
      writeCookies: (setCookies) => port.setCookies(setCookies, config),
    }
  }

  const serverCall = async <T>(
    port: RequestPort,
    fn: (rt: ConfigRuntime, config: ResolvedConfig, request: ServerCallRequest) => Promise<T>,
  ): Promise<T> => {
    const rt = await runtime(port.native)
    const config = resolved(rt)
    return fn(rt, config, callRequest(port, config))
  }

  const serverConfig = async (): Promise<ResolvedConfig> => resolved(await runtime(undefined))

  return {
    runtime,
    resolved,
    mounted,
    async handle(port, rt, config) {
      // `GET <base>/session` with no query and no Cookie header: an answer that depends on the origin only.
      const kept = port.method === "GET" && port.cookie === undefined && port.target === `${config.basePath}/session`
      if (kept && !(config.session.bearer && port.headers().has("authorization"))) {
        return cookielessSessionRead(rt, config, config.authUrl?.origin ?? port.origin())
      }
      const pending = port.read(config, {
        userConfig: rt.config,
        capFor: (method, url) => routeBodyLimit(method, url.pathname, config.basePath),
      })
      const read = pending instanceof Promise ? await pending : pending
      const { source, webRequest } = sourceOf(port.method, read)
      const clientIp = port.clientIp(config)
      return serialized(
        await answerRequest(rt, config, source, { webRequest, ...(clientIp !== undefined ? { clientIp } : {}) }),
      )
    },
    async fetch(request) {
      const rt = await runtime(undefined)
      return (await answerWebRequest(rt, resolved(rt), request)) as Response
    },
    session(port) {
      const known = memoryOf(port.native)
      if (!known.session) {
        known.session = fixed
          ? readSession(port, fixed)
          : Promise.resolve(runtime(port.native)).then((rt) => readSession(port, rt))
      }
      return known.session
    },
    async decide(port, session, options = {}) {
      const config = resolved(await runtime(port.native))
      const origin = config.authUrl?.origin ?? port.origin()
      const url = port.routedUrl ? port.routedUrl(origin) : new URL(`${origin}${port.target}`)
      const routing = port.routing?.()
      const request = { url, method: port.method, headers: port.headers(), req: port.native }
      return decideAccess(config, session, routing ? { ...request, routing } : request, options)
    },
    signIn: (port, provider, options, authorizationParams) =>
      serverCall(port, (rt, config, request) =>
        serverSignIn(rt, config, request, provider, options, authorizationParams),
      ),
    signOut: (port, options) => serverCall(port, (rt, config, request) => serverSignOut(rt, config, request, options)),
    update: (port, data) =>
      serverCall(port, async (rt, config, request) => {
        const { session, setCookies } = await serverUpdate(rt, config, request, data)
        port.setCookies(setCookies, config)
        return session
      }),
    ...sessionMembers<RequestPort>({ withSession, serverConfig, originOf: (port) => port.origin() }),
    ...twoFactorMembers<RequestPort>(
      (port, fn) => withSession(port, (ctx) => fn(ctx)),
      (port) => port.origin(),
    ),
    password: (port, member, input) =>
      serverCall(port, async (rt, config, request) => {
        const { setCookies } = await passwordCall(rt, config, request, member, input)
        port.setCookies(setCookies, config)
        return { ok: true as const }
      }),
    accounts: accountMembers<RequestPort>({
      withSession,
      serverConfig,
      serverCall,
      setCookies: (port, values, config) => port.setCookies(values, config),
    }),
  }
}

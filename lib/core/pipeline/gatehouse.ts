/**
 * `createGatehouse(input)`: the one object per config that every framework edge wraps. It owns each member once (the
 * auth routes, the session read, access decisions, server-side sign-in, sign-out and update, passkey and session
 * management, refresh, rate-limit reset), the lazy-config cache, the mount record and the per-request memory. An edge
 * only turns its native request into a {@link RequestPort} and writes the answer back.
 */
import type { AdapterUser } from "../../storage/adapter"
import { parseCookieHeader } from "../../cookie-header"
import { InvalidConfig } from "../../errors"
import type { ResolvedConfig } from "../kernel/config/types"
import { routeBodyLimit, sourceOfBytes, sourceOfRequest, type RequestSource } from "../kernel/request"
import type { SerializedResult } from "../kernel/response"
import { resetAccountLimits } from "../kernel/rate-limit/enforce"
import type { AuthConfig, Awaitable, Session } from "../kernel/types"
import { deletePasskey, listPasskeys, renamePasskey, type PasskeyInfo } from "../methods/webauthn/manage"
import { readServerSession, serverSessionContext } from "../session"
import {
  deleteUser,
  isSessionFresh,
  listSessions,
  revokeAllSessions,
  revokeOtherSessions,
  revokeSession,
  revokeUserSessions,
  type SessionInfo,
} from "../session/manage"
import { getAccessToken, type AccessTokenResult, type GetAccessTokenOptions } from "../session/refresh"
import type { PrincipalMemo, SessionContext } from "../session/types"
import { reissuedTokenHeaders } from "../session/session-route"
import { carriedBearer } from "../kernel/bearer"
import { issueForRequest, rotateForConfig, type AccessTokenRequest, type IssuedAccessToken } from "./token-members"
import { decideAccess, type AccessOptions, type AccessVerdict, type PathRouting } from "./access"
import { accountMembers, type AccountMembers } from "./accounts"
import { answerRequest, answerWebRequest, cookielessSessionRead, serialized } from "./auth"
import { createConfigRuntime, createRuntimeCache, type ConfigRuntime } from "./runtime"
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
export type { TwoFactorMembers }
export type { ServerOnlyAccountMember } from "./accounts"
export { SERVER_ONLY_ACCOUNT_MEMBERS } from "./accounts"
// What the edges need of the core beyond this object, so they import nothing else of it.
export { wantsJson } from "./access"
export { isRoute, providerActions } from "../kernel/routes"
export { passwordMembers, type PasswordInput, type PasswordMember } from "./password-calls"

/** A config, or a function of the native request returning one (called per request; cached by returned object). */
export type GatehouseInput<Native = unknown> = AuthConfig | ((request: Native | undefined) => Awaitable<AuthConfig>)

/**
 * What an edge hands the core for one request: facts about it, read lazily, and where its cookies go. The edge's own
 * rules stay in the edge (Express: the app's `trust proxy` for the scheme, host and client IP); the core applies
 * `AUTH_URL`, `useSecureCookies` and everything else.
 */
export interface RequestPort {
  /** The native request: the key of the per-request memory, and `request.req` for `callbacks.authorized`. */
  readonly native: object
  readonly method: string
  /** The raw `Cookie` header. */
  readonly cookie: string | null | undefined
  /** The path and query as the app routed it (Express: `req.originalUrl`). */
  readonly target: string
  /** Whether the request arrived over https, under the edge's rules. */
  readonly https: boolean
  readonly userAgent: string | null | undefined
  /** A body the app already parsed (the double-submit `csrfToken` of a server call's origin guard). */
  readonly body?: unknown
  /** The request's own origin under the edge's rules; throws a 400 error when none can be formed. */
  origin(): string
  /**
   * The URL the deny rule decides on: `origin` with the path as the app routes it. An edge whose router reads the raw
   * path refuses (400) one a URL parser would rewrite. Default: `origin` + `target`.
   */
  routedUrl?(origin: string): URL
  /** How the app's router compares paths (case, trailing slash). Default: exactly. */
  routing?(): PathRouting
  headers(): Headers
  /** The client IP for the rate limits; `undefined` leaves it to `rateLimit.ip(request)`. */
  clientIp(config: ResolvedConfig): string | null | undefined
  /**
   * Reads the request for the auth routes: a Web `Request` (its body is read by the core, capped), or its URL, headers
   * and body bytes (already read and limited by the edge). `userConfig` is the object the app passed (edge options).
   */
  read(config: ResolvedConfig, options: ReadOptions): Promise<RequestRead>
  /** Writes (Express) or queues (Fetch) `Set-Cookie` values for this request's answer. */
  setCookies(values: string[], config: ResolvedConfig): void
  /** Sets headers on this request's answer (a re-issued bearer session's `X-Auth-Token`), where the edge can. */
  setHeaders?(headers: Record<string, string>): void
}

/** A bearer session re-issued by a server-side read goes out in `X-Auth-Token` (tokens.md T1.3), not a cookie. */
function sendReissuedToken(port: RequestPort, ctx: SessionContext): void {
  const headers = reissuedTokenHeaders(ctx)
  if (headers["X-Auth-Token"] !== undefined) port.setHeaders?.(headers)
}

/**
 * A request as an edge read it for the auth routes: a Web `Request`, or its parts (`body` `"oversized"` when reading
 * stopped at the route's own cap).
 */
export type RequestRead =
  { request: Request } | { url: URL; headers: Headers; body: Uint8Array<ArrayBuffer> | null | "oversized" }

/** What an edge reading a request needs from the core. */
export interface ReadOptions {
  /** The object the app passed (edge options such as Express's `bodyLimit`). */
  userConfig: AuthConfig
  /** A route's own body cap (back-channel logout: 16 KB): past it the edge stops reading and answers `"oversized"`. */
  capFor(method: string, url: URL): number | undefined
}

/** Where a request reached the auth routes: the mount path, or `undefined` when the framework cannot tell. */
export interface Mount {
  at: string | undefined
  pathname: string
}

/** The Gatehouse object of one config (or lazy config function). */
export interface Gatehouse extends TwoFactorMembers<RequestPort> {
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
  listAuthenticators(port: RequestPort): Promise<PasskeyInfo[] | null>
  renameAuthenticator(port: RequestPort, id: string, name: string): Promise<PasskeyInfo>
  deleteAuthenticator(port: RequestPort, id: string): Promise<void>
  listSessions(port: RequestPort): Promise<SessionInfo[] | null>
  revokeSession(port: RequestPort, id: string): Promise<boolean>
  revokeOtherSessions(port: RequestPort): Promise<boolean>
  revokeAllSessions(port: RequestPort): Promise<boolean>
  isSessionFresh(port: RequestPort): Promise<boolean>
  getAccessToken(
    port: RequestPort,
    provider?: string,
    options?: GetAccessTokenOptions,
  ): Promise<AccessTokenResult | null>
  revokeUserSessions(userId: string): Promise<number>
  deleteUser(userId: string): Promise<AdapterUser | null>
  resetRateLimit(options: { identifier: string }): Promise<void>
  /** tokens.md T3.2: an access token for the request's user, or `null` without a session. */
  issueAccessToken(port: RequestPort, input?: AccessTokenRequest): Promise<IssuedAccessToken | null>
  /** tokens.md T3.4: rotates the generated access-token keys now. */
  rotateAccessTokenKeys(): Promise<{ kid: string; previousKid: string | null }>
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

/** What the pipeline reads of a request an edge read, and the Web `Request` user callbacks receive (built lazily). */
function sourceOf(method: string, read: RequestRead): { source: RequestSource; webRequest: Request | (() => Request) } {
  if ("request" in read) return { source: sourceOfRequest(read.request), webRequest: read.request }
  const { url, headers, body } = read
  return {
    source: sourceOfBytes(method, url, headers, body),
    webRequest: () =>
      body === null ? new Request(url, { method, headers }) : new Request(url, { method, headers, body }),
  }
}

function sameBase(a: string, b: string): boolean {
  // Frameworks route case-insensitively by default (Express: `/AUTH/session` reaches `app.use("/auth", ...)`).
  return a.toLowerCase() === b.toLowerCase()
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
  let recordedBase: string | undefined
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

  const resolved = (rt: ConfigRuntime): ResolvedConfig => {
    if (rt.explicitBasePath) return rt.resolved
    // Without basePath, the resolved base is AUTH_URL's path when it has one, else "/auth".
    return rt.at(recordedBase ?? rt.resolved.basePath)
  }

  /** The session context of a server-side call on `port`, sharing the request's memory of who is signed in. */
  const contextOf = (port: RequestPort, rt: ConfigRuntime, config: ResolvedConfig): SessionContext => {
    const bearer = config.session.bearer ? carriedBearer(port.headers()) : undefined
    return serverSessionContext(
      config,
      {
        secure: port.https,
        cookie: port.cookie,
        userAgent: port.userAgent,
        clientIp: () => port.clientIp(config) ?? null,
        ...(bearer ? { bearer } : {}),
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
    const state = await readServerSession(ctx)
    port.setCookies(state.setCookies, config)
    sendReissuedToken(port, ctx)
    return state.session
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
    mounted(rt, mount) {
      const explicit = rt.explicitBasePath ? rt.resolved.basePath : rt.urlBasePath
      const established = explicit ?? recordedBase
      if (mount.at === undefined) {
        // The framework cannot tell where auth is mounted (Express 4's wildcard form): the path, chosen by the
        // client, must not decide it, so no base is recorded. The base is the configured or recorded one, else the
        // default.
        const base = established ?? rt.resolved.basePath
        if (mount.pathname.toLowerCase().startsWith(`${base.toLowerCase()}/`)) return rt.at(base)
        throw new InvalidConfig(
          "the request is not under the base path of this auth handler (with a wildcard mount, set config.basePath)",
          { cause: { basePath: base } },
        )
      }
      if (established === undefined) {
        recordedBase = mount.at
        return rt.at(mount.at)
      }
      if (sameBase(mount.at, established)) return rt.at(established)
      throw new InvalidConfig(
        explicit === undefined
          ? "this auth handler is already mounted at another path; give each mount its own Gatehouse(config)"
          : rt.explicitBasePath
            ? "config.basePath does not match where ExpressAuth is mounted"
            : `AUTH_URL's path (${explicit}) does not match where the auth handlers are mounted (${mount.at || "/"}): ` +
              "mount them there, or set AUTH_URL to the app's origin only (its path is only the mount path)",
        { cause: { basePath: established, mountedAt: mount.at } },
      )
    },
    async handle(port, rt, config) {
      // `GET <base>/session` with no query and no Cookie header: an answer that depends on the origin only.
      const kept = port.method === "GET" && port.cookie === undefined && port.target === `${config.basePath}/session`
      if (kept && !(config.session.bearer && port.headers().has("authorization"))) {
        return cookielessSessionRead(rt, config, config.authUrl?.origin ?? port.origin())
      }
      const read = await port.read(config, {
        userConfig: rt.config,
        capFor: (method, url) => routeBodyLimit(method, url.pathname, config.basePath),
      })
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
    listAuthenticators: (port) => withSession(port, (ctx) => listPasskeys(ctx)),
    renameAuthenticator: (port, id, name) => withSession(port, (ctx) => renamePasskey(ctx, id, name)),
    deleteAuthenticator: (port, id) => withSession(port, (ctx) => deletePasskey(ctx, id)),
    listSessions: (port) => withSession(port, (ctx) => listSessions(ctx)),
    revokeSession: (port, id) => withSession(port, async (ctx) => (await revokeSession(ctx, String(id))) === "revoked"),
    revokeOtherSessions: (port) => withSession(port, async (ctx) => (await revokeOtherSessions(ctx)) === "revoked"),
    revokeAllSessions: (port) => withSession(port, async (ctx) => (await revokeAllSessions(ctx)) === "revoked"),
    isSessionFresh: (port) => withSession(port, (ctx) => isSessionFresh(ctx)),
    getAccessToken: (port, provider, options) =>
      withSession(port, (ctx, rt) => getAccessToken(ctx, rt.refresh, provider, options)),
    revokeUserSessions: async (userId) => revokeUserSessions(await serverConfig(), userId),
    deleteUser: async (userId) => deleteUser(await serverConfig(), userId),
    resetRateLimit: async ({ identifier }) => resetAccountLimits(await serverConfig(), identifier),
    issueAccessToken: (port, input) =>
      withSession(port, (ctx) => issueForRequest(ctx, ctx.config.authUrl?.origin ?? port.origin(), input)),
    rotateAccessTokenKeys: async () => rotateForConfig(await serverConfig()),
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

/**
 * The identity authority of the Express layer: which resolved config serves a request, where auth is mounted, and
 * the memoised session of each request. `Gatehouse(config)` owns one; `ExpressAuth`, `getSession` and `requireAuth`
 * share the one of their config object.
 */
import type { Request, Response as ExpressResponse } from "express"
import { createConfigRuntime, createRuntimeCache, type ConfigRuntime } from "../core/pipeline/gatehouse"
import type { ResolvedConfig } from "../core/kernel/config/types"
import { getSessionState } from "../core/session"
import type { AuthConfig, Awaitable, Session } from "../core/kernel/types"
import { InvalidConfig } from "../errors"
import { mountBasePath } from "./mount"
import { isSecureRequest } from "./origin"

/** A config, or a function of the Express request returning one (called per request; cached by returned object). */
export type ExpressConfigInput = AuthConfig | ((req: Request | undefined) => Awaitable<AuthConfig>)

export interface Identity {
  /** The runtime of the config serving `req` (the lazy function is called with it); a static config's at once. */
  runtime(req: Request | undefined): ConfigRuntime | Promise<ConfigRuntime>
  /**
   * The base path server-side calls and `requireAuth` use: `config.basePath` when set, else the mount path `handlers`
   * recorded on its first request, else the path of `AUTH_URL`, else `/auth`.
   */
  basePath(runtime: ConfigRuntime): string
  /** The resolved config under {@link basePath}. */
  resolved(runtime: ConfigRuntime): ResolvedConfig
  /** The resolved config for a request that reached `handlers`: the first mount wins; another base is an error. */
  mounted(req: Request, runtime: ConfigRuntime): ResolvedConfig
  /** The session of `req`, read once per request; a refreshed cookie goes to `res` (or `req.res`). */
  session(req: Request, res?: ExpressResponse): Promise<Session | null>
}

function sameBase(a: string, b: string): boolean {
  // Express routes case-insensitively by default: `/AUTH/session` reaches `app.use("/auth", ...)`.
  return a.toLowerCase() === b.toLowerCase()
}

function writeCookies(res: ExpressResponse | undefined, cookies: string[], resolved: ResolvedConfig): void {
  if (!res || cookies.length === 0) return
  if (res.headersSent) {
    resolved.logger.warn("session-cookie-not-written")
    return
  }
  const existing = res.getHeader("set-cookie")
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)]
  res.setHeader("set-cookie", [...list, ...cookies])
}

/**
 * Creates the identity authority of one config (or lazy config function). A static config is resolved now, so a bad
 * one throws here.
 *
 * @example
 * ```ts
 * const identity = createIdentity(config)
 * const session = await identity.session(req, res)
 * ```
 */
export function createIdentity(input: ExpressConfigInput): Identity {
  const fixed = typeof input === "function" ? undefined : createConfigRuntime(input)
  const lazy = typeof input === "function" ? input : undefined
  const cache = createRuntimeCache()
  let recordedBase: string | undefined
  // The session read for each request, once per identity.
  const sessions = new WeakMap<object, Promise<Session | null>>()
  const readSession = async (req: Request, res: ExpressResponse | undefined, runtime: ConfigRuntime) => {
    const resolved = identity.resolved(runtime)
    const state = await getSessionState(
      resolved,
      { secure: isSecureRequest(req, resolved.authUrl), cookie: req.headers.cookie },
      { sessionCache: runtime.sessionCache },
    )
    writeCookies(res ?? req.res, state.setCookies, resolved)
    return state.session
  }

  const identity: Identity = {
    runtime(req) {
      if (fixed) return fixed
      // A throwing config function rejects, as before: never a synchronous throw out of `auth(req)`.
      return Promise.resolve()
        .then(() => lazy!(req))
        .then((config) => cache.get(config))
    },
    basePath(runtime) {
      if (runtime.explicitBasePath) return runtime.resolved.basePath
      // Without basePath, the resolved base is AUTH_URL's path when it has one, else "/auth".
      return recordedBase ?? runtime.resolved.basePath
    },
    resolved(runtime) {
      return runtime.at(identity.basePath(runtime))
    },
    mounted(req, runtime) {
      const explicit = runtime.explicitBasePath ? runtime.resolved.basePath : undefined
      const established = explicit ?? recordedBase
      const mountedAt = req.baseUrl.replace(/\/+$/, "")
      const derived = mountBasePath(req)
      if (derived !== mountedAt) {
        // The Express 4 wildcard form `app.use("/auth/*")`: the path, chosen by the client, cannot tell where auth is
        // mounted, so it never records a base. The base is the configured or recorded one, else `/auth`.
        const base = established ?? runtime.resolved.basePath
        const pathname = (req.originalUrl.split("?")[0] ?? "").toLowerCase()
        if (pathname.startsWith(`${base.toLowerCase()}/`)) return runtime.at(base)
        throw new InvalidConfig(
          "the request is not under the base path of this auth handler (with a wildcard mount, set config.basePath)",
          { cause: { basePath: base } },
        )
      }
      if (established === undefined) {
        recordedBase = mountedAt
        return runtime.at(mountedAt)
      }
      if (sameBase(mountedAt, established)) return runtime.at(established)
      throw new InvalidConfig(
        explicit !== undefined
          ? "config.basePath does not match where ExpressAuth is mounted"
          : "this auth handler is already mounted at another path; give each mount its own Gatehouse(config)",
        { cause: { basePath: established, mountedAt } },
      )
    },
    session(req, res) {
      let pending = sessions.get(req)
      if (!pending) {
        pending = fixed
          ? readSession(req, res, fixed)
          : Promise.resolve(identity.runtime(req)).then((runtime) => readSession(req, res, runtime))
        sessions.set(req, pending)
      }
      return pending
    },
  }
  return identity
}

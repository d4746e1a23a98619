/**
 * The port: what an edge hands the Gatehouse object for one request (facts read lazily, where its cookies go), and
 * how the auth routes read the request it carries.
 */
import type { ResolvedConfig } from "../kernel/config/types"
import { sourceOfBytes, sourceOfRequest, type RequestSource } from "../kernel/request"
import type { AuthConfig } from "../kernel/types"
import type { PathRouting } from "./access"

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
   * A read that needs no wait (no body) may answer at once instead of with a promise.
   */
  read(config: ResolvedConfig, options: ReadOptions): RequestRead | Promise<RequestRead>
  /** Writes (Express) or queues (Fetch) `Set-Cookie` values for this request's answer. */
  setCookies(values: string[], config: ResolvedConfig): void
  /** Sets headers on this request's answer (a re-issued bearer session's `X-Auth-Token`), where the edge can. */
  setHeaders?(headers: Record<string, string>): void
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

/**
 * What the pipeline reads of a request an edge read, and the Web `Request` user callbacks receive (built lazily).
 *
 * @example
 * ```ts
 * const { source, webRequest } = sourceOf(port.method, await port.read(config, options))
 * ```
 */
export function sourceOf(
  method: string,
  read: RequestRead,
): { source: RequestSource; webRequest: Request | (() => Request) } {
  if ("request" in read) return { source: sourceOfRequest(read.request), webRequest: read.request }
  const { url, headers, body } = read
  return {
    source: sourceOfBytes(method, url, headers, body),
    webRequest: () =>
      body === null ? new Request(url, { method, headers }) : new Request(url, { method, headers, body }),
  }
}

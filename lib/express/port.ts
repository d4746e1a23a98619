/** The Express request as the core's port: Express's own rules (`trust proxy`, `req.ip`, the body it parsed) stay here. */
import type { Request, Response as ExpressResponse } from "express"
import type { PathRouting, ReadOptions, RequestPort, RequestRead, ServerCallResult } from "../core/pipeline/gatehouse"
import type { ResolvedConfig } from "../core/pipeline/gatehouse"
import { headersOf } from "./node-headers"
import { readNodeRequest } from "./read-request"
import { isSecureRequest, originOf } from "./origin"
import { warnAboutOrigin } from "./origin-warnings"
import { routedUrl, routingOf } from "./routed-path"
import type { ExpressAuthOptions } from "./types"

/**
 * Appends `Set-Cookie` values to `res` (after any the app set); once headers are out, warns
 * `session-cookie-not-written` instead.
 */
export function appendCookies(res: ExpressResponse | undefined, cookies: string[], config: ResolvedConfig): void {
  if (!res || cookies.length === 0) return
  if (res.headersSent) {
    config.logger.warn("session-cookie-not-written")
    return
  }
  const existing = res.getHeader("set-cookie")
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)]
  res.setHeader("set-cookie", [...list, ...cookies])
}

/** Whether a server call's first argument is a request (`signIn(req, res, ...)`) rather than its own input. */
export const isExpressRequest = (value: unknown): value is Request =>
  typeof (value as { headers?: unknown } | null)?.headers === "object" && typeof (value as Request).method === "string"

/**
 * Writes a server-side sign-in or sign-out answer: its cookies, then (unless `redirect: false`) the redirect, 302
 * after a GET and 303 after any other method. Resolves to the URL.
 */
export function writeServerCall(
  req: Request,
  res: ExpressResponse,
  result: ServerCallResult,
  config: ResolvedConfig,
): string {
  appendCookies(res, result.setCookies, config)
  if (result.redirect && !res.headersSent) {
    res.redirect(req.method === "GET" || req.method === "HEAD" ? 302 : 303, result.url)
  }
  return result.url
}

/** One Express request (and its response, or `req.res`) as the core reads it. */
export class ExpressPort implements RequestPort {
  constructor(
    readonly native: Request,
    private readonly res?: ExpressResponse,
  ) {}

  get method(): string {
    return this.native.method
  }
  get cookie(): string | undefined {
    return this.native.headers.cookie
  }
  get target(): string {
    return this.native.originalUrl
  }
  /** The scheme under the app's `trust proxy` setting (never throws). */
  get https(): boolean {
    return isSecureRequest(this.native)
  }
  get userAgent(): string | undefined {
    return this.native.headers["user-agent"]
  }
  get body(): unknown {
    return this.native.body as unknown
  }
  origin(): string {
    return originOf(this.native)
  }
  /** Express routes the raw path: one a URL parser would rewrite is refused (400) instead of decided on another. */
  routedUrl(origin: string): URL {
    return routedUrl(origin, this.native.originalUrl)
  }
  setHeaders(headers: Record<string, string>): void {
    const res = this.res ?? this.native.res
    if (!res || res.headersSent) return
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value)
  }
  routing(): PathRouting {
    return routingOf(this.native)
  }
  headers(): Headers {
    return headersOf(this.native)
  }
  /** `rateLimit.ip(req)` when configured, else `req.ip`, which follows the app's `trust proxy`. */
  clientIp(config: ResolvedConfig): string | null {
    warnAboutOrigin(this.native, config)
    const custom = config.rateLimit.ip
    return (custom ? custom(this.native) : this.native.ip) ?? null
  }
  /** Read at once when the request has no body (no wait on the hot path); else once the body is read. */
  read(config: ResolvedConfig, options: ReadOptions): RequestRead | Promise<RequestRead> {
    warnAboutOrigin(this.native, config)
    const { bodyLimit } = options.userConfig as ExpressAuthOptions
    return readNodeRequest(this.native, { bodyLimit, authUrl: config.authUrl, capFor: options.capFor })
  }
  setCookies(values: string[], config: ResolvedConfig): void {
    warnAboutOrigin(this.native, config)
    appendCookies(this.res ?? this.native.res, values, config)
  }
}

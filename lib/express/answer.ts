/**
 * How the Express layer answers a request under its mount: a cookie-less session read from the runtime's kept answer,
 * anything else through the core pipeline, reading the Node request once.
 */
import type { Request } from "express"
import { cookielessSessionRead, handleAuthRequestSerialized } from "../core/pipeline/auth"
import type { ResolvedConfig } from "../core/kernel/config/types"
import type { ConfigRuntime } from "../core/pipeline/gatehouse"
import { routeBodyLimit, sourceOfBytes } from "../core/kernel/request"
import { readNodeRequest, webRequestOf } from "./convert"
import { originOf } from "./origin"

/** Options of the Express flavour beyond the core config. */
export interface ExpressAuthOptions {
  /** Largest request body read from the stream, in bytes. Default 102400. */
  bodyLimit?: number
}

/**
 * The client IP of an Express request for the rate limits: `rateLimit.ip(req)` when configured, else `req.ip`, which
 * follows the app's `trust proxy` (so a spoofed `X-Forwarded-For` counts only from a trusted hop).
 */
export function clientIpOf(req: Request, resolved: ResolvedConfig): string | null {
  const custom = resolved.rateLimit.ip
  return (custom ? custom(req) : req.ip) ?? null
}

/**
 * Whether `req` is `GET <base>/session` with no query and no `Cookie` header at all: an answer that depends on the
 * origin only, so nothing else of the request is read (issue 16); the runtime keeps it per origin.
 */
function isCookielessSessionRead(req: Request, resolved: ResolvedConfig): boolean {
  return req.method === "GET" && req.headers.cookie === undefined && req.originalUrl === `${resolved.basePath}/session`
}

/** The pipeline's answer to any other request, read once (the Web `Request` is built only if a callback asks). */
async function pipelineAnswer(req: Request, resolved: ResolvedConfig, runtime: ConfigRuntime) {
  const { bodyLimit } = runtime.config as ExpressAuthOptions
  const parts = await readNodeRequest(req, {
    bodyLimit,
    authUrl: resolved.authUrl,
    // A route with its own cap (back-channel logout: 16 KB) is not read past it, whatever the body declares.
    capFor: (method, url) => routeBodyLimit(method, url.pathname, resolved.basePath),
  })
  const source = sourceOfBytes(parts.method, parts.url, parts.headers, parts.body)
  return handleAuthRequestSerialized({ source, webRequest: () => webRequestOf(parts) }, resolved, {
    sessionCache: runtime.sessionCache,
    clientIp: clientIpOf(req, resolved),
  })
}

/**
 * The answer to a request that reached the auth handlers: serialised, or a Web `Response` (errors, streamed pages).
 *
 * @example
 * ```ts
 * const answer = await answerAuthRequest(req, identity.mounted(req, runtime), runtime)
 * ```
 */
export function answerAuthRequest(req: Request, resolved: ResolvedConfig, runtime: ConfigRuntime) {
  return isCookielessSessionRead(req, resolved)
    ? cookielessSessionRead(resolved, originOf(req, resolved.authUrl), {
        sessionCache: runtime.sessionCache,
        cookielessAnswers: runtime.cookielessAnswers,
      })
    : pipelineAnswer(req, resolved, runtime)
}

/** `requireAccessToken(options)`: the Express middleware of `gatehouse-auth/resource` (tokens.md T4.1). */
import type { NextFunction, Request, RequestHandler, Response } from "express"
import { AccessTokenError } from "../errors"
import type { ResourceServerOptions } from "./options"
import { Verifier, type AccessTokenInfo, type ResourceRequest } from "./verify"

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The access token `requireAccessToken` verified (`req.auth` stays the session). */
      accessToken?: AccessTokenInfo
    }
  }
}

const headerValues = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value]

/** What the verifier reads of an Express request: the raw header lines, so a repeated header is seen as repeated. */
export function expressResourceRequest(req: Request, baseUrl: string | undefined): ResourceRequest {
  const authorization: string[] = []
  const dpop: string[] = []
  const raw = req.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase()
    if (name === "authorization") authorization.push(raw[i + 1]!)
    else if (name === "dpop") dpop.push(raw[i + 1]!)
  }
  if (raw.length === 0) {
    authorization.push(...headerValues(req.headers.authorization))
    dpop.push(...headerValues(req.headers.dpop))
  }
  const query = req.originalUrl.indexOf("?")
  const search = new URLSearchParams(query === -1 ? "" : req.originalUrl.slice(query + 1))
  const body = req.body as Record<string, unknown> | undefined
  const tokenInBody = body !== null && typeof body === "object" && !Array.isArray(body) && "access_token" in body
  const origin = baseUrl ?? `${req.protocol}://${req.get("host") ?? "localhost"}`
  const path = query === -1 ? req.originalUrl : req.originalUrl.slice(0, query)
  return {
    method: req.method,
    url: `${origin}${path}`,
    authorization,
    dpop,
    tokenInRequest: search.has("access_token") || tokenInBody,
  }
}

/**
 * Express middleware protecting an API with access tokens from any issuer: on success `res.locals.accessToken` and
 * `req.accessToken` hold the verified token and `next()` runs; a refusal is answered (RFC 6750 / RFC 9449) and
 * `next()` is never called. Bad options throw `InvalidConfig` here, not at the first request. Build it once: its caches
 * (discovery, JWKS, introspection) live in it.
 *
 * @example
 * ```ts
 * app.get("/api/data", requireAccessToken({ issuer, audience: "https://api.example.com/", scopes: ["read"] }), handler)
 * ```
 */
export function requireAccessToken(options: ResourceServerOptions): RequestHandler & { verifier: Verifier } {
  const verifier = new Verifier(options)
  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    verifier.verify(expressResourceRequest(req, verifier.options.baseUrl)).then(
      (info: AccessTokenInfo) => {
        res.locals.accessToken = info
        req.accessToken = info
        next()
      },
      (error: unknown) => {
        if (!(error instanceof AccessTokenError)) return next(error)
        res.status(error.status)
        for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value)
        res.json({ error: error.error, error_description: error.message, code: error.code })
      },
    )
  }
  return Object.assign(middleware, { verifier })
}

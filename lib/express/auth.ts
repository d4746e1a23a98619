/** `ExpressAuth(config)`: the auth routes as Express middleware, on Express 4 and 5, at any mount path. */
import type { NextFunction, Request, RequestHandler, Response as ExpressResponse } from "express"
import { handleAuthRequestSerialized, resolveConfig, type AuthConfig, type ResolvedConfig } from "../core"
import { InvalidConfig } from "../errors"
import { sendSerialized, sendWebResponse, toWebRequest } from "./convert"
import { mountBasePath } from "./mount"

/** Options of {@link ExpressAuth} beyond the core config. */
export interface ExpressAuthOptions {
  /** Largest request body read from the stream, in bytes. Default 102400. */
  bodyLimit?: number
}

export type ExpressAuthConfig = AuthConfig & ExpressAuthOptions

function httpError(error: unknown): Error & { status: number; statusCode: number } {
  const err = (error instanceof Error ? error : new Error(String(error))) as Error & {
    status?: number
    statusCode?: number
  }
  const status = err.status ?? err.statusCode ?? 500
  return Object.assign(err, { status, statusCode: status })
}

/**
 * Creates the middleware serving `/signin`, `/callback/:provider`, `/session`, `/csrf`, `/signout` and the other
 * actions under the path it is mounted at. The config is resolved and validated here, so a bad config throws now,
 * not at the first request.
 *
 * @example
 * ```ts
 * import express from "express"
 * import { ExpressAuth } from "gatehouse"
 * import Credentials from "gatehouse/providers/credentials"
 *
 * const app = express()
 * app.set("trust proxy", true) // behind a reverse proxy
 * app.use("/auth", ExpressAuth({ providers: [Credentials({ authorize: checkLogin })] }))
 * ```
 */
export function ExpressAuth(config: ExpressAuthConfig): RequestHandler {
  const { bodyLimit, ...authConfig } = config
  const explicitBase = authConfig.basePath?.replace(/\/+$/, "")
  // Resolving now throws for a bad config; mounts at other paths reuse everything but the base path.
  const initial = resolveConfig(authConfig)
  const byBase = new Map<string, ResolvedConfig>([[initial.basePath, initial]])

  const configFor = (basePath: string): ResolvedConfig => {
    let resolved = byBase.get(basePath)
    if (!resolved) {
      resolved = resolveConfig({ ...authConfig, basePath: basePath || "/" })
      byBase.set(basePath, resolved)
    }
    return resolved
  }

  return function gatehouseAuth(req: Request, res: ExpressResponse, next: NextFunction): void {
    const run = async () => {
      const basePath = mountBasePath(req)
      if (explicitBase !== undefined && explicitBase !== basePath) {
        throw new InvalidConfig("config.basePath does not match where ExpressAuth is mounted", {
          cause: { basePath: explicitBase, mountedAt: basePath },
        })
      }
      const resolved = configFor(basePath)
      const request = await toWebRequest(req, { bodyLimit, authUrl: resolved.authUrl })
      const answer = await handleAuthRequestSerialized(request, resolved)
      if (answer instanceof globalThis.Response) await sendWebResponse(answer, res)
      else sendSerialized(answer, res)
    }
    run().catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy(error instanceof Error ? error : undefined)
        return
      }
      next(httpError(error))
    })
  }
}

/** `ExpressAuth(config)`: the auth routes as Express middleware, on Express 4 and 5, at any mount path. */
import type { RequestHandler } from "express"
import type { AuthConfig } from "../core"
import { instanceFor, type ExpressAuthOptions } from "./gatehouse"

export type { ExpressAuthOptions }

export type ExpressAuthConfig = AuthConfig & ExpressAuthOptions

/**
 * Creates the middleware serving `/signin`, `/callback/:provider`, `/session`, `/csrf`, `/signout` and the other
 * actions under the path it is mounted at: the `handlers` of `Gatehouse(config)`, shared with `getSession(req,
 * config)` and `requireAuth(config)` for the same config object. The config is resolved and validated here, so a bad
 * config throws now, not at the first request. The first mount path seen wins (set `basePath` to pin it); a request
 * under another base is answered with an error.
 *
 * @example
 * ```ts
 * import express from "express"
 * import { ExpressAuth } from "gatehouse-auth"
 * import Credentials from "gatehouse-auth/providers/credentials"
 *
 * const app = express()
 * app.set("trust proxy", true) // behind a reverse proxy
 * app.use("/auth", ExpressAuth({ providers: [Credentials({ authorize: checkLogin })] }))
 * ```
 */
export function ExpressAuth(config: ExpressAuthConfig): RequestHandler {
  return instanceFor(config).handlers
}

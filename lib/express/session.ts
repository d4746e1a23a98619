/** `getSession(req, config)`: the session of an Express request, read in-process and memoised on the request. */
import type { Request } from "express"
import type { AuthConfig, Session } from "../core"
import { instanceFor } from "./gatehouse"

/**
 * Reads the session of `req`: `null` when there is none, or the cookie is missing, garbled, expired or foreign. No
 * HTTP round trip; memoised per request and config. When the session is refreshed (at most once per
 * `session.updateAge`), the new cookie is set on `req.res` if its headers are not sent yet (else the warning
 * `session-cookie-not-written` is logged). Sets `req.auth`, `req.user`, `res.locals.session` and
 * `req.isAuthenticated()`. Only a bad config throws.
 *
 * @example
 * ```ts
 * app.get("/", async (req, res) => {
 *   const session = await getSession(req, authConfig)
 *   res.send(session ? `Hello ${session.user?.name}` : "Hello stranger")
 * })
 * ```
 */
export function getSession(req: Request, config: AuthConfig): Promise<Session | null> {
  return instanceFor(config).auth(req)
}

/** `handlers`: the auth routes as Express middleware, answered by the core's Gatehouse object. */
import type { NextFunction, Request, Response as ExpressResponse } from "express"
import type { Gatehouse } from "../core/pipeline/gatehouse"
import { sendSerialized, sendWebResponse } from "./convert"
import { mountBasePath, withoutTrailingSlashes } from "./mount"
import { ExpressPort } from "./port"
import type { GatehouseHandlers } from "./types"

/** An error for Express's error handler, with `status`/`statusCode` set (500 unless the error says otherwise). */
function httpError(error: unknown): Error & { status: number; statusCode: number } {
  const err = (error instanceof Error ? error : new Error(String(error))) as Error & {
    status?: number
    statusCode?: number
  }
  const status = err.status ?? err.statusCode ?? 500
  return Object.assign(err, { status, statusCode: status })
}

/**
 * The middleware serving every auth action under its mount path (the first mount is recorded; Express 4's wildcard
 * `app.use("/auth/*")` records none), plus `fetch` for a Web `Request`. `inScope` opens the request context.
 *
 * @example
 * ```ts
 * app.use("/auth", authHandlers(gatehouse, (req, res, fn) => fn()))
 * ```
 */
export function authHandlers(
  core: Gatehouse,
  inScope: <R>(req: Request, res: ExpressResponse, fn: () => R) => R,
): GatehouseHandlers {
  const handlers = function gatehouseHandlers(req: Request, res: ExpressResponse, next: NextFunction): void {
    const answer = async () => {
      // A fixed config's runtime is at hand: awaiting it anyway would cost every request a turn of the queue.
      const pending = core.runtime(req)
      const runtime = pending instanceof Promise ? await pending : pending
      // Express 4's wildcard mount `app.use("/auth/*")` hides where auth is mounted: then the mount is unknown.
      const at = withoutTrailingSlashes(req.baseUrl)
      const target = req.originalUrl
      const query = target.indexOf("?")
      const mount = {
        at: mountBasePath(req) === at ? at : undefined,
        pathname: query === -1 ? target : target.slice(0, query),
      }
      const answered = await core.handle(new ExpressPort(req, res), runtime, core.mounted(runtime, mount))
      if (answered instanceof globalThis.Response) await sendWebResponse(answered, res)
      else sendSerialized(answered, res)
    }
    void inScope(req, res, () =>
      answer().catch((error: unknown) => {
        if (res.headersSent) res.destroy(error instanceof Error ? error : undefined)
        else next(httpError(error))
      }),
    )
  } as GatehouseHandlers
  handlers.fetch = (request) => core.fetch(request as globalThis.Request)
  return handlers
}

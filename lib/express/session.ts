/** `getSession(req, config)`: the session of an Express request, read in-process and memoised on the request. */
import type { Request } from "express"
import { getSessionState, resolveConfigCached, type AuthConfig, type Session } from "../core"

const sessionsByRequest = new WeakMap<object, Map<AuthConfig, Promise<Session | null>>>()

function appendSetCookies(req: Request, cookies: string[]): void {
  const res = req.res
  if (!res || cookies.length === 0 || res.headersSent) return
  const existing = res.getHeader("set-cookie")
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)]
  res.setHeader("set-cookie", [...list, ...cookies])
}

async function readSession(req: Request, config: AuthConfig): Promise<Session | null> {
  const resolved = resolveConfigCached(config)
  const { session, setCookies } = await getSessionState(resolved, {
    secure: req.protocol === "https",
    cookie: req.headers.cookie,
  })
  appendSetCookies(req, setCookies)
  return session
}

/**
 * Reads the session of `req`: `null` when there is none, or the cookie is missing, garbled, expired or foreign. No
 * HTTP round trip; memoised per request and config. When the session is refreshed (at most once per
 * `session.updateAge`), the new cookie is set on `req.res` if its headers are not sent yet. Only a bad config throws.
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
  let byConfig = sessionsByRequest.get(req)
  if (!byConfig) {
    byConfig = new Map()
    sessionsByRequest.set(req, byConfig)
  }
  let pending = byConfig.get(config)
  if (!pending) {
    pending = readSession(req, config)
    byConfig.set(config, pending)
  }
  return pending
}

/** The Web `Request` as the core's port, and the Fetch flavour's answers: queued cookies, denials, server calls. */
import type { AccessVerdict, RequestPort, ServerCallResult } from "../core/pipeline/gatehouse"

/**
 * Ports for Web requests and the cookie queue they share: `setCookies` queues for the request, `applyCookies`
 * appends what is queued to a response (a copy when its headers are immutable).
 *
 * @example
 * ```ts
 * const { portOf, applyCookies } = webPorts()
 * ```
 */
export function webPorts(): {
  portOf(request: Request): RequestPort
  applyCookies(request: Request, response: Response): Response
} {
  const queued = new WeakMap<Request, string[]>()
  // A bearer session re-issued by a server read (tokens.md T1.3): `X-Auth-Token` headers, applied with the cookies.
  const queuedHeaders = new WeakMap<Request, Record<string, string>>()
  const portOf = (request: Request): RequestPort => {
    const url = new URL(request.url)
    return {
      native: request,
      method: request.method,
      cookie: request.headers.get("cookie"),
      target: url.pathname + url.search,
      https: url.protocol === "https:",
      userAgent: request.headers.get("user-agent"),
      origin: () => url.origin,
      headers: () => request.headers,
      // The runtime's client address is not on a Web Request: `rateLimit.ip(request)` decides.
      clientIp: () => undefined,
      read: async () => ({ request }),
      setCookies: (cookies) => {
        if (cookies.length > 0) queued.set(request, [...(queued.get(request) ?? []), ...cookies])
      },
      setHeaders: (headers) => void queuedHeaders.set(request, { ...queuedHeaders.get(request), ...headers }),
    }
  }
  const applyCookies = (request: Request, response: Response): Response => {
    const cookies = queued.get(request) ?? []
    const extra = queuedHeaders.get(request)
    if (cookies.length === 0 && !extra) return response
    queued.delete(request)
    queuedHeaders.delete(request)
    const apply = (headers: Headers) => {
      for (const cookie of cookies) headers.append("set-cookie", cookie)
      for (const [name, value] of Object.entries(extra ?? {})) headers.set(name, value)
    }
    try {
      apply(response.headers)
      return response
    } catch {
      // Immutable headers (a `Response.redirect()` or a fetched response): answer with a copy.
      const headers = new Headers(response.headers)
      apply(headers)
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
    }
  }
  return { portOf, applyCookies }
}

/** The answer to a request the deny rule refused. */
export function denial(verdict: Exclude<AccessVerdict, { kind: "pass" }>): Response {
  if (verdict.kind === "response") return verdict.response
  if (verdict.location !== undefined)
    return new Response(null, { status: 302, headers: { Location: verdict.location } })
  if (verdict.status !== 403) {
    const headers = verdict.challenge === undefined ? undefined : { "WWW-Authenticate": verdict.challenge }
    return Response.json({ error: "Unauthorized" }, { status: 401, headers })
  }
  if (verdict.json) return Response.json({ error: "Forbidden" }, { status: 403 })
  return new Response("Forbidden", { status: 403, headers: { "Content-Type": "text/plain" } })
}

/** A sign-in or sign-out answer: a redirect with its cookies, or `{ url }` as JSON for `redirect: false`. */
export function serverCallAnswer(request: Request, result: ServerCallResult): Response {
  const headers = new Headers(result.setCookies.map((cookie): [string, string] => ["set-cookie", cookie]))
  if (!result.redirect) return Response.json({ url: result.url }, { headers })
  headers.set("Location", result.url)
  return new Response(null, { status: ["GET", "HEAD"].includes(request.method.toUpperCase()) ? 302 : 303, headers })
}

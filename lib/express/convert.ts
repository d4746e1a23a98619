/** Converts a Node/Express request into a Web `Request` and writes a Web `Response` back to a Node response. */
import type { IncomingMessage, ServerResponse } from "node:http"
import { httpError, readRequestBody } from "./body"
import type { HttpError } from "./body"
import { originOf, type OriginRequest } from "./origin"

export type { HttpError }

/**
 * The parts of a Node request the converter reads. An Express 4 or 5 `Request` satisfies it, and so does a plain
 * `IncomingMessage` (no `app`: then no proxy header is trusted and the protocol comes from the socket).
 */
export interface NodeRequest extends OriginRequest {
  /** Express: the URL before any mount path was stripped. Falls back to `url`. */
  originalUrl?: string
  /** A body some earlier middleware parsed (`express.json()`, `express.urlencoded()`, ...). */
  body?: unknown
}

/** Options of {@link toWebRequest}. */
export interface ToWebRequestOptions {
  /** Largest body, in bytes, read from the stream when no middleware parsed it. Default 102400 (100 KB). */
  bodyLimit?: number
  /** When set (from `AUTH_URL`), its origin is the origin of the request; the `Host` header is then ignored. */
  authUrl?: URL
}

/** The default limit of a body read from the stream: 100 KB, as body-parser's. */
export const DEFAULT_BODY_LIMIT = 102_400

const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"])

/**
 * Builds a Web `Request` from a Node/Express request, for handing it to `Auth()` or another Web-standard handler.
 *
 * The origin is `req.protocol` and the host as Express resolves them under the app's `trust proxy` setting: with
 * trust proxy off, `X-Forwarded-Proto`/`X-Forwarded-Host` are ignored. With `authUrl`, its origin is used instead and
 * the `Host` header does not count at all. The path is `req.originalUrl`. Every header is copied. The body comes
 * from `req.body` when a body parser already consumed the stream (re-encoded per `Content-Type`), otherwise it is
 * read from the stream up to `bodyLimit` bytes.
 *
 * @throws {@link HttpError} 413 (`entity.too.large`) when the body exceeds `bodyLimit`; 400 (`request.invalid.host`,
 *   `request.invalid.url`) when no valid origin or path can be formed; 400 (`request.invalid.method`) for a method
 *   the Fetch standard forbids (CONNECT, TRACE, TRACK); 400 (`request.aborted`) when the client stops
 *   sending the body.
 * @example
 * ```ts
 * app.post("/hook", async (req, res, next) => {
 *   try {
 *     const response = await handler(await toWebRequest(req, { bodyLimit: 10_000 }))
 *     await sendWebResponse(response, res)
 *   } catch (err) {
 *     next(err)
 *   }
 * })
 * ```
 */
export async function toWebRequest(req: NodeRequest, options: ToWebRequestOptions = {}): Promise<Request> {
  return webRequestOf(await readNodeRequest(req, options))
}

/** A Node request read once: what {@link toWebRequest} builds a `Request` from, and the core can read directly. */
export interface NodeRequestParts {
  method: string
  url: URL
  headers: Headers
  /**
   * The body bytes (re-encoded when a parser had consumed them); `null` for GET, HEAD and a request without one;
   * `"oversized"` when reading stopped at the route's cap (see {@link ReadNodeRequestOptions.capFor}).
   */
  body: Uint8Array<ArrayBuffer> | null | "oversized"
}

/** Options of {@link readNodeRequest}. */
export interface ReadNodeRequestOptions extends ToWebRequestOptions {
  /**
   * A smaller cap for this request (a route's own body limit): a body over it is not read any further, and `body` is
   * `"oversized"` instead of a 413.
   */
  capFor?: (method: string, url: URL) => number | undefined
}

/**
 * Reads a Node/Express request under the rules of {@link toWebRequest} (same origin rule, headers, body and errors),
 * without building the `Request`.
 *
 * @example
 * ```ts
 * const { url, headers, body } = await readNodeRequest(req, { bodyLimit: 10_000 })
 * ```
 */
export async function readNodeRequest(
  req: NodeRequest,
  options: ReadNodeRequestOptions = {},
): Promise<NodeRequestParts> {
  const url = urlOf(req, originOf(req, options.authUrl))
  const headers = copyHeaders(req)
  const method = (req.method ?? "GET").toUpperCase()
  // The Fetch standard forbids some methods Node accepts (CONNECT, TRACE, TRACK): no Web Request can carry them.
  if (FORBIDDEN_METHODS.has(method)) throw httpError(400, "request.invalid.method", "Unsupported request method")
  if (method === "GET" || method === "HEAD") return { method, url, headers, body: null }
  const limit = limitOf(options)
  const cap = options.capFor?.(method, url)
  const capped = cap !== undefined && cap <= limit
  let body: Awaited<ReturnType<typeof readRequestBody>>
  try {
    body = await readRequestBody(req, capped ? cap : limit)
  } catch (error) {
    // Over the route's cap: the route answers that (with its own error form), not a generic 413.
    if (capped && (error as HttpError).type === "entity.too.large") return { method, url, headers, body: "oversized" }
    throw error
  }
  if (!body) return { method, url, headers, body: null }
  // The body may have been re-encoded, so its framing headers are those of the bytes actually sent (each changed only
  // when it differs: a `Headers` write costs more than the check).
  if (req.headers["transfer-encoding"] !== undefined) headers.delete("transfer-encoding")
  const length = String(body.bytes.byteLength)
  if (req.headers["content-length"] !== length) headers.set("content-length", length)
  if (body.contentType) headers.set("content-type", body.contentType)
  return { method, url, headers, body: body.bytes }
}

/**
 * The Web `Request` of a request read by {@link readNodeRequest}.
 *
 * @example
 * ```ts
 * const request = webRequestOf(await readNodeRequest(req))
 * ```
 */
export function webRequestOf({ method, url, headers, body }: NodeRequestParts): Request {
  return body === null || body === "oversized"
    ? new Request(url, { method, headers })
    : new Request(url, { method, headers, body })
}

/**
 * Writes a Web `Response` to a Node/Express response: status, every header (each `Set-Cookie` as a header of its own,
 * added to any the app already set), then the body, streamed with back-pressure.
 *
 * Resolves once the body is written or the client went away. It rejects only when nothing has been sent yet (the
 * response body failed before its first chunk), so the caller may still answer with an error. When the response has
 * already started, a failing body ends the connection instead, and this resolves. When headers were sent before the
 * call, the Web response is discarded.
 *
 * @example
 * ```ts
 * app.get("/health", async (_req, res) => {
 *   await sendWebResponse(Response.json({ ok: true }), res)
 * })
 * ```
 */
export async function sendWebResponse(response: Response, res: ServerResponse): Promise<void> {
  if (res.headersSent || res.writableEnded || res.destroyed) {
    await discard(response)
    return
  }
  const reader = response.body?.getReader()
  // The first chunk is read before any header is written, so a body that fails at once leaves the response untouched.
  const first = reader ? await reader.read() : { done: true as const, value: undefined }

  res.statusCode = response.status
  if (response.statusText) res.statusMessage = response.statusText
  for (const [name, value] of response.headers) {
    if (name !== "set-cookie") res.setHeader(name, value)
  }
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) res.setHeader("set-cookie", [...existingCookies(res), ...cookies])

  if (!reader || first.done) {
    res.end()
    return
  }
  await streamBody(reader, first.value, res)
}

/**
 * Writes an already serialised answer (status, header pairs, body text) to a Node/Express response in one go: the
 * fast path for small answers that need no Web `Response`. `Set-Cookie` pairs are added to any the app already set.
 *
 * @example
 * ```ts
 * sendSerialized({ status: 200, headers: [["Content-Type", "application/json"]], body: "{}" }, res)
 * ```
 */
export function sendSerialized(
  answer: { status: number; headers: readonly (readonly [string, string])[]; body: string | null },
  res: ServerResponse,
): void {
  if (res.headersSent || res.writableEnded || res.destroyed) return
  res.statusCode = answer.status
  const cookies: string[] = []
  for (const [name, value] of answer.headers) {
    if (name.toLowerCase() === "set-cookie") cookies.push(value)
    else res.setHeader(name, value)
  }
  if (cookies.length > 0) res.setHeader("set-cookie", [...existingCookies(res), ...cookies])
  if (answer.body === null) {
    res.end()
    return
  }
  res.setHeader("content-length", Buffer.byteLength(answer.body))
  res.end(answer.body)
}

function limitOf(options: ToWebRequestOptions): number {
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw Object.assign(new TypeError("bodyLimit must be a non-negative integer"), { code: "ERR_INVALID_ARG_VALUE" })
  }
  return limit
}

/**
 * The path and query of the request. Only origin-form (`/path?query`) is used as is; an absolute-form target
 * (`GET http://other.example/path`) contributes its path and query only, so it cannot change the origin either.
 */
/**
 * The absolute URL of the request under `origin`. Concatenated, not resolved against a base: a path such as
 * `//evil.example/x` must stay a path. An origin-form target without a fragment is parsed once, right after the
 * origin (which ends at its host, so the target can only add a path and a query); any other goes through
 * {@link pathOf} first.
 */
function urlOf(req: NodeRequest, origin: string): URL {
  const target = req.originalUrl ?? req.url ?? "/"
  if (target.startsWith("/") && !target.includes("#")) return new URL(origin + target)
  return new URL(origin + pathOf(req))
}

function pathOf(req: NodeRequest): string {
  const target = req.originalUrl ?? req.url ?? "/"
  if (target.startsWith("/")) {
    // Prefixing with a dummy origin keeps a `//host/path` target a path instead of a protocol-relative URL.
    const parsed = new URL(`http://localhost${target}`)
    return parsed.pathname + parsed.search
  }
  try {
    const parsed = new URL(target)
    if (parsed.protocol === "http:" || parsed.protocol === "https:") return parsed.pathname + parsed.search
  } catch {
    // falls through to the error below
  }
  throw httpError(400, "request.invalid.url", "Invalid request target")
}

function copyHeaders(req: IncomingMessage): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    // HTTP/2 pseudo-headers (":path", ...) are not headers of the message.
    if (value === undefined || name.startsWith(":")) continue
    for (const item of Array.isArray(value) ? value : [value]) {
      try {
        headers.append(name, item)
      } catch {
        // Node accepted a value the Fetch standard does not; such a header cannot be forwarded, so it is dropped.
      }
    }
  }
  return headers
}

function existingCookies(res: ServerResponse): string[] {
  const current = res.getHeader("set-cookie")
  if (current === undefined) return []
  return Array.isArray(current) ? current : [String(current)]
}

async function streamBody(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  first: Uint8Array,
  res: ServerResponse,
): Promise<void> {
  // The client may leave while the body is still being produced: stop producing it.
  let closed = false
  const onClose = () => {
    closed = true
    reader.cancel().catch(() => undefined)
  }
  res.once("close", onClose)
  try {
    let chunk: Uint8Array | undefined = first
    while (chunk) {
      if (closed || res.destroyed) return
      if (!res.write(chunk)) await drained(res)
      const next = await reader.read()
      chunk = next.done ? undefined : next.value
    }
    if (!closed && !res.destroyed) res.end()
  } catch (err) {
    // Headers are out: the only honest signal left is a cut connection, so the client sees a truncated response.
    res.destroy(err instanceof Error ? err : undefined)
  } finally {
    res.off("close", onClose)
    reader.releaseLock()
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done)
      res.off("close", done)
      res.off("error", done)
      resolve()
    }
    res.on("drain", done)
    res.on("close", done)
    res.on("error", done)
  })
}

async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel()
  } catch {
    // nothing to release
  }
}

/** Converts a Node/Express request into a Web `Request` and writes a Web `Response` back to a Node response. */
import type { ServerResponse } from "node:http"
import type { HttpError } from "./body"
import { readNodeRequest, type NodeRequest, type NodeRequestParts, type ToWebRequestOptions } from "./read-request"

export type { HttpError }
export { DEFAULT_BODY_LIMIT, readNodeRequest } from "./read-request"
export type { NodeRequest, NodeRequestParts, ReadNodeRequestOptions, ToWebRequestOptions } from "./read-request"

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
  const { headers } = answer
  // An index loop: no iterator and no destructuring per header on every answer.
  for (let i = 0; i < headers.length; i++) {
    const name = headers[i]![0]
    if (name === "Set-Cookie" || name.toLowerCase() === "set-cookie") cookies.push(headers[i]![1])
    else res.setHeader(name, headers[i]![1])
  }
  if (cookies.length > 0) {
    const existing = existingCookies(res)
    res.setHeader("set-cookie", existing.length === 0 ? cookies : [...existing, ...cookies])
  }
  if (answer.body === null) {
    res.end()
    return
  }
  res.setHeader("content-length", Buffer.byteLength(answer.body))
  res.end(answer.body)
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

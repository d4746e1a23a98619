/** Obtains the body of a Node request: re-encoded from `req.body` when a parser consumed it, else read with a limit. */
import type { IncomingMessage } from "node:http"

/** An error meant for Express's error handler: `status`/`statusCode` set the response status. */
export interface HttpError extends Error {
  status: number
  statusCode: number
  /** A stable identifier, in body-parser's style (`entity.too.large`, ...). */
  type: string
  /** The message is safe to show the client. */
  expose: true
}

/** A request body ready for a Web `Request`, and the `Content-Type` to send with it when that had to change. */
export interface RequestBody {
  bytes: Uint8Array<ArrayBuffer>
  contentType?: string
}

/** Creates an {@link HttpError}. */
export function httpError(status: number, type: string, message: string): HttpError {
  return Object.assign(new Error(message), { status, statusCode: status, type, expose: true as const })
}

/**
 * Returns the body of `req`, or `null` when it has none.
 *
 * When a body parser already consumed the stream (body-parser 1.x marks the request with `_body`; 2.x, like any
 * reader, leaves the stream ended), the parsed `req.body` is encoded again: a `Buffer` or string as is, an object as
 * `application/x-www-form-urlencoded` (arrays as repeated keys, nested objects in bracket notation, as `qs` reads
 * them) when the request was a form, otherwise as JSON. Otherwise the stream is read, and rejected with a 413 as
 * soon as it passes `limit` bytes (or at once when `Content-Length` announces more), without reading further.
 */
export async function readRequestBody(
  req: IncomingMessage & { body?: unknown },
  limit: number,
): Promise<RequestBody | null> {
  if (wasConsumed(req)) return encodeParsedBody(req)
  if (!hasBody(req)) return null
  return { bytes: await readStream(req, limit) }
}

function wasConsumed(req: IncomingMessage): boolean {
  return (req as { _body?: unknown })._body === true || req.readableEnded || (req.complete && !req.readable)
}

// RFC 9112 section 6.3: a request has a body only when it says so with Transfer-Encoding or Content-Length.
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"]
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
}

function encodeParsedBody(req: IncomingMessage & { body?: unknown }): RequestBody | null {
  const { body } = req
  if (body === undefined || body === null) return null
  if (body instanceof Uint8Array) return { bytes: new Uint8Array(body) }
  if (typeof body === "string") return { bytes: Buffer.from(body, "utf8") }
  const type = mediaType(req.headers["content-type"])
  if (type === "application/x-www-form-urlencoded" || type === "multipart/form-data") {
    const form = new URLSearchParams()
    if (typeof body === "object") {
      for (const [key, value] of Object.entries(body)) appendField(form, key, value)
    }
    // A multipart body cannot be rebuilt (its boundary and files are gone); its fields travel as a plain form.
    const contentType = type === "multipart/form-data" ? "application/x-www-form-urlencoded" : undefined
    return { bytes: Buffer.from(form.toString(), "utf8"), contentType }
  }
  const isJson = type === "application/json" || type.endsWith("+json")
  return { bytes: Buffer.from(JSON.stringify(body), "utf8"), contentType: isJson ? undefined : "application/json" }
}

function appendField(form: URLSearchParams, key: string, value: unknown): void {
  if (value === undefined) return
  if (Array.isArray(value)) {
    for (const item of value) appendField(form, key, item)
  } else if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    for (const [name, item] of Object.entries(value)) appendField(form, `${key}[${name}]`, item)
  } else {
    form.append(key, value === null ? "" : String(value))
  }
}

function mediaType(header: string | undefined): string {
  return (header ?? "").split(";", 1)[0]!.trim().toLowerCase()
}

function tooLarge(limit: number, length: number | undefined): HttpError {
  const err = httpError(413, "entity.too.large", "Request body too large")
  return Object.assign(err, { limit, length })
}

/**
 * The whole body at once when it has already arrived (a small form usually comes in the packet of its headers): every
 * byte sits in the stream's buffer within `limit` (the message is complete, or it declared a `Content-Length`, with no
 * chunked framing, that the buffer holds in full) and nothing else reads the stream. Then it is taken from the buffer
 * in one `read()` instead of through the stream's events; otherwise `undefined`.
 */
function bufferedBody(req: IncomingMessage, limit: number): Uint8Array<ArrayBuffer> | undefined {
  if (req.readableFlowing !== null || req.readableEnded || req.readableObjectMode || req.readableEncoding !== null) {
    return undefined
  }
  const length = req.readableLength
  if (length === 0 || length > limit) return undefined
  const declared = req.headers["content-length"]
  const whole =
    req.complete ||
    (req.headers["transfer-encoding"] === undefined && declared !== undefined && Number(declared) === length)
  if (!whole) return undefined
  const chunk: unknown = req.read()
  // Copied, as the stream path's `concat` does: the chunk may be a view of a larger socket buffer.
  return Buffer.isBuffer(chunk) ? Buffer.concat([chunk]) : undefined
}

function readStream(req: IncomingMessage, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = req.headers["content-length"]
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge(limit, Number(declared)))
  const buffered = bufferedBody(req, limit)
  if (buffered) return Promise.resolve(buffered)

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let received = 0
    const cleanup = () => {
      req.off("data", onData)
      req.off("end", onEnd)
      req.off("error", onError)
      req.off("close", onClose)
    }
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
      received += bytes.length
      if (received > limit) {
        cleanup()
        // Stop reading here; Node discards whatever the client still sends once the response is finished.
        req.pause()
        reject(tooLarge(limit, undefined))
        return
      }
      chunks.push(bytes)
    }
    const onEnd = () => {
      cleanup()
      resolve(Buffer.concat(chunks))
    }
    const onError = (err: Error) => {
      cleanup()
      reject(err)
    }
    // "close" before "end": the client went away in the middle of the body.
    const onClose = () => {
      cleanup()
      reject(httpError(400, "request.aborted", "Request aborted"))
    }
    req.on("data", onData)
    req.on("end", onEnd)
    req.on("error", onError)
    req.on("close", onClose)
  })
}

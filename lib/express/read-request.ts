/** Reads a Node/Express request once: its origin, URL, headers and body, under the rules of `toWebRequest`. */
import { httpError, readRequestBody } from "./body"
import type { HttpError } from "./body"
import { headersOf } from "./node-headers"
import { originOf, type OriginRequest } from "./origin"

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

/** Options of `toWebRequest` (in `convert.ts`). */
export interface ToWebRequestOptions {
  /** Largest body, in bytes, read from the stream when no middleware parsed it. Default 102400 (100 KB). */
  bodyLimit?: number
  /** When set (from `AUTH_URL`), its origin is the origin of the request; the `Host` header is then ignored. */
  authUrl?: URL
}

/** The default limit of a body read from the stream: 100 KB, as body-parser's. */
export const DEFAULT_BODY_LIMIT = 102_400

const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"])

/** A Node request read once: what `toWebRequest` builds a `Request` from, and the core can read directly. */
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
 * Reads a Node/Express request under the rules of `toWebRequest` in `convert.ts` (same origin rule, headers, body and
 * errors), without building the `Request`. A request without a body (GET, HEAD) is read at once, with no wait; one
 * with a body resolves once the body is read.
 *
 * @example
 * ```ts
 * const { url, headers, body } = await readNodeRequest(req, { bodyLimit: 10_000 })
 * ```
 */
export function readNodeRequest(
  req: NodeRequest,
  options: ReadNodeRequestOptions = {},
): NodeRequestParts | Promise<NodeRequestParts> {
  const url = urlOf(req, originOf(req, options.authUrl))
  const headers = headersOf(req)
  const method = (req.method ?? "GET").toUpperCase()
  // The Fetch standard forbids some methods Node accepts (CONNECT, TRACE, TRACK): no Web Request can carry them.
  if (FORBIDDEN_METHODS.has(method)) throw httpError(400, "request.invalid.method", "Unsupported request method")
  if (method === "GET" || method === "HEAD") return { method, url, headers, body: null }
  return withBody(req, options, method, url, headers)
}

/** The rest of {@link readNodeRequest} for a method that may carry a body. */
async function withBody(
  req: NodeRequest,
  options: ReadNodeRequestOptions,
  method: string,
  url: URL,
  headers: Headers,
): Promise<NodeRequestParts> {
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

function limitOf(options: ToWebRequestOptions): number {
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw Object.assign(new TypeError("bodyLimit must be a non-negative integer"), { code: "ERR_INVALID_ARG_VALUE" })
  }
  return limit
}

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

/**
 * The path and query of the request. Only origin-form (`/path?query`) is used as is; an absolute-form target
 * (`GET http://other.example/path`) contributes its path and query only, so it cannot change the origin either.
 */
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

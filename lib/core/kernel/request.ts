/** Parses a Web `Request` once into what the actions need: action, provider, method, query, body, cookies. */
import { InvalidRequest, UnknownAction } from "../../errors"
import { isRoute, policyOf, providerActions, routes, type AuthAction } from "./routes"
import { parseCookieHeader } from "../../cookie-header"

export interface AuthRequest {
  method: "GET" | "POST"
  url: URL
  action: AuthAction
  providerId?: string
  headers: Headers
  query: Record<string, string>
  body?: Record<string, unknown>
  cookies: Record<string, string>
  /** The first `error` search parameter. */
  error?: string
  /**
   * POST /backchannel-logout only: the raw body text (read up to {@link MAX_LOGOUT_BODY_BYTES}), or `null` when it was
   * larger; the other fields' `body` stays unset for that action.
   */
  rawBody?: string | null
}

/** Largest body POST /backchannel-logout reads (its row's `bodyLimit`): reading stops past it. */
export const MAX_LOGOUT_BODY_BYTES: number = routes["backchannel-logout"].bodyLimit

/**
 * Reads at most `limit` bytes of the body, counting the bytes as they stream in (a chunked body has no Content-Length
 * to trust): the text, or `null` (and the stream cancelled, the rest never read) when it is larger.
 */
async function readCapped(request: Request, limit: number): Promise<string | null> {
  const declared = Number(request.headers.get("content-length") ?? 0)
  if (declared > limit) return null
  if (!request.body) return ""
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => undefined)
      return null
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString("utf8")
}

/**
 * Splits a pathname into action and provider id under `basePath` (`""` for the root). Returns null when it is not one
 * of ours: another base, an unknown action, a provider id where none is allowed, or more than two segments.
 *
 * @example
 * ```ts
 * parseActionAndProviderId("/auth/signin/github", "/auth") // { action: "signin", providerId: "github" }
 * ```
 */
export function parseActionAndProviderId(
  pathname: string,
  basePath: string,
): { action: AuthAction; providerId?: string } | null {
  if (!pathname.startsWith(`${basePath}/`)) return null
  const rest = pathname.slice(basePath.length + 1)
  if (rest.startsWith("/")) return null
  const segments = rest.split("/").filter(Boolean)
  if (segments.length < 1 || segments.length > 2) return null
  const [action, rawProviderId] = segments as [string, string | undefined]
  if (!isRoute(action)) return null
  let providerId: string | undefined
  if (rawProviderId !== undefined && rawProviderId !== "undefined") {
    if (!providerActions.has(action)) return null
    try {
      providerId = decodeURIComponent(rawProviderId)
    } catch {
      return null
    }
  }
  return providerId === undefined ? { action } : { action, providerId }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
}

/** Largest body the core reads (framework layers usually cap it lower: Express at 100 KB). */
export const MAX_BODY_BYTES = 1024 * 1024

/**
 * A request as the core reads it: the method, the absolute URL, the headers, and a way to read the body text up to a
 * byte limit (`null` when it is larger). A Web `Request` is one source ({@link sourceOfRequest}); a framework layer
 * that already holds the body bytes makes another without building a `Request` ({@link sourceOfBytes}).
 */
export interface RequestSource {
  method: string
  url: URL
  headers: Headers
  readBody(limit: number): Promise<string | null>
}

/**
 * The source of a Web `Request`: its body is streamed and counted on read.
 *
 * @example
 * ```ts
 * const authRequest = await parseRequestSource(sourceOfRequest(request), "/auth")
 * ```
 */
export function sourceOfRequest(request: Request): RequestSource {
  return {
    method: request.method,
    url: new URL(request.url),
    headers: request.headers,
    readBody: (limit) => readCapped(request, limit),
  }
}

/**
 * The source of a request whose body bytes were already read (`null`: no body; `"oversized"`: the framework layer
 * stopped reading at the route's `bodyLimit`, so every read answers too large).
 *
 * @example
 * ```ts
 * sourceOfBytes("POST", new URL("https://app.example/auth/signout"), headers, Buffer.from("csrfToken=..."))
 * ```
 */
export function sourceOfBytes(
  method: string,
  url: URL,
  headers: Headers,
  bytes: Uint8Array | null | "oversized",
): RequestSource {
  return {
    method,
    url,
    headers,
    async readBody(limit) {
      if (bytes === "oversized") return null
      if (bytes === null) return ""
      if (bytes.byteLength > limit) return null
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")
    },
  }
}

async function readText(source: RequestSource): Promise<string> {
  const text = await source.readBody(MAX_BODY_BYTES)
  if (text === null) throw new InvalidRequest("Request body too large", { cause: { limit: MAX_BODY_BYTES } })
  return text
}

async function readBody(source: RequestSource): Promise<Record<string, unknown> | undefined> {
  const type = source.headers.get("content-type") ?? ""
  if (type.includes("application/json")) {
    const text = await readText(source)
    if (!text) return {}
    const parsed: unknown = JSON.parse(text)
    if (!isRecord(parsed)) throw new InvalidRequest("Request body must be a JSON object")
    return parsed
  }
  if (type.includes("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(await readText(source)))
  }
  return undefined
}

/**
 * Parses `request` under `basePath`. Throws `UnknownAction` for anything that is not a GET/POST to a known action, and
 * `InvalidRequest` for a body that is malformed or too large — the caller answers both with 400.
 *
 * @example
 * ```ts
 * const authRequest = await parseAuthRequest(new Request("https://app.example/auth/session"), "/auth")
 * ```
 */
export function parseAuthRequest(request: Request, basePath: string): Promise<AuthRequest> {
  return parseRequestSource(sourceOfRequest(request), basePath)
}

/**
 * Parses a {@link RequestSource} under `basePath`, with the rules of {@link parseAuthRequest}.
 *
 * @example
 * ```ts
 * const authRequest = await parseRequestSource(sourceOfBytes("GET", url, headers, null), "/auth")
 * ```
 */
export async function parseRequestSource(source: RequestSource, basePath: string): Promise<AuthRequest> {
  const method = source.method.toUpperCase()
  if (method !== "GET" && method !== "POST") throw new UnknownAction("Only GET and POST requests are supported")
  const { url } = source
  const parsed = parseActionAndProviderId(url.pathname, basePath)
  if (!parsed) throw new UnknownAction("Cannot parse action")
  let body: Record<string, unknown> | undefined
  let rawBody: string | null | undefined
  if (method === "POST" && parsed.action === "backchannel-logout") {
    rawBody = await source.readBody(MAX_LOGOUT_BODY_BYTES)
  } else if (method === "POST") {
    try {
      body = await readBody(source)
    } catch (error) {
      throw error instanceof InvalidRequest
        ? error
        : new InvalidRequest("Malformed request body", { cause: error as Error })
    }
  }
  return {
    method,
    url,
    action: parsed.action,
    providerId: parsed.providerId,
    headers: source.headers,
    // `url.searchParams` is built on first access: a request without a query never needs it.
    query: url.search === "" ? {} : Object.fromEntries(url.searchParams),
    body,
    cookies: parseCookieHeader(source.headers.get("cookie")),
    error: url.search === "" ? undefined : (url.searchParams.get("error") ?? undefined),
    ...(rawBody === undefined ? {} : { rawBody }),
  }
}

/**
 * The parsed request of `GET <basePath>/session` without a query, the read Auth.js clients poll, when `source` is one
 * (else `undefined`): what {@link parseRequestSource} makes of it, without the general parse and its wait (issue 27).
 *
 * @example
 * ```ts
 * const request = sessionReadOf(source, "/auth") ?? (await parseRequestSource(source, "/auth"))
 * ```
 */
export function sessionReadOf(source: RequestSource, basePath: string): AuthRequest | undefined {
  const { url } = source
  if (source.method !== "GET" || url.search !== "" || url.pathname !== `${basePath}/session`) return undefined
  return sessionReadRequest(url, source.headers)
}

/**
 * The parsed request of a session read (`GET <base>/session`, no query) at `url`, in the shape
 * {@link parseRequestSource} gives every request.
 *
 * @example
 * ```ts
 * sessionReadRequest(new URL("https://app.example/auth/session"), new Headers()).action // "session"
 * ```
 */
export function sessionReadRequest(url: URL, headers: Headers): AuthRequest {
  return {
    method: "GET",
    url,
    action: "session",
    providerId: undefined,
    headers,
    query: {},
    body: undefined,
    cookies: parseCookieHeader(headers.get("cookie")),
    error: undefined,
  }
}

/**
 * The body cap of the route a request names: the `bodyLimit` of its row for a POST under `basePath`, else
 * `undefined`. For framework layers that read the body before the core does, so they stop where the route would.
 *
 * @example
 * ```ts
 * routeBodyLimit("POST", "/auth/backchannel-logout/corp", "/auth") // 16384
 * ```
 */
export function routeBodyLimit(method: string, pathname: string, basePath: string): number | undefined {
  if (method.toUpperCase() !== "POST") return undefined
  const parsed = parseActionAndProviderId(pathname, basePath)
  return parsed ? policyOf(parsed.action).bodyLimit : undefined
}

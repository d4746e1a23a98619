/**
 * The one origin rule of the Express layer (converter, session reads, `requireAuth`, `auth`, `signIn`...): `AUTH_URL`'s
 * origin when set, else the protocol and host as Express resolves them under the app's `trust proxy` setting.
 */
import type { IncomingMessage } from "node:http"
import { httpError } from "./body"

/**
 * The parts of a Node request the origin rule reads. An Express 4 or 5 `Request` satisfies it, and so does a plain
 * `IncomingMessage` (no `app`: then no proxy header is trusted and the protocol comes from the socket).
 */
export interface OriginRequest extends IncomingMessage {
  /** Express: `http` or `https`, after the app's `trust proxy` setting. */
  protocol?: string
  /** Express: the application, whose compiled `trust proxy fn` setting decides whether `X-Forwarded-Host` counts. */
  app?: { get(setting: string): unknown }
}

// RFC 3986: host = IP-literal / IPv4address / reg-name, then [ ":" port ]. The reg-name is narrowed to the letters,
// digits, "-", "." and "_" real host names use, so nothing a URL parser would re-interpret can get through.
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::[0-9]{1,5})?$/

/** Serialised origins by `protocol://host` as received: an app sees a handful, so each is parsed once. */
const origins = new Map<string, string>()
const MAX_CACHED_ORIGINS = 256

type TrustProxy = (address: string | undefined, hop: number) => boolean

/**
 * `protocol://host` of the request, validated: `authUrl`'s origin when given (the `Host` header then does not count),
 * else the request's under the app's `trust proxy` setting.
 *
 * @throws an `HttpError` 400 (`request.invalid.host`, `request.invalid.protocol`) when no valid origin can be formed.
 * @example
 * ```ts
 * originOf(req) // "https://app.example" behind a trusted proxy sending X-Forwarded-Proto/Host
 * ```
 */
export function originOf(req: OriginRequest, authUrl?: URL): string {
  if (authUrl) return authUrl.origin
  const protocol = protocolOf(req)
  if (protocol !== "http" && protocol !== "https") {
    throw httpError(400, "request.invalid.protocol", "Invalid request protocol")
  }
  const host = resolveHost(req, trustProxyOf(req))
  if (!host || !HOST.test(host)) throw httpError(400, "request.invalid.host", "Invalid Host header")
  const raw = `${protocol}://${host}`
  const known = origins.get(raw)
  if (known !== undefined) return known
  let origin: string
  try {
    origin = new URL(raw).origin
  } catch {
    throw httpError(400, "request.invalid.host", "Invalid Host header")
  }
  // The Host header is the client's: the cache stays bounded whatever it sends.
  if (origins.size >= MAX_CACHED_ORIGINS) origins.clear()
  origins.set(raw, origin)
  return origin
}

/**
 * Whether the request is served over https under the same rule as {@link originOf}; never throws.
 *
 * @example
 * ```ts
 * const secure = isSecureRequest(req, resolved.authUrl)
 * ```
 */
export function isSecureRequest(req: OriginRequest, authUrl?: URL): boolean {
  if (authUrl) return authUrl.protocol === "https:"
  return protocolOf(req) === "https"
}

function protocolOf(req: OriginRequest): string {
  return (typeof req.protocol === "string" ? req.protocol : socketProtocol(req)).toLowerCase()
}

/**
 * The host with its port, as Express 5's `req.host` computes it: `X-Forwarded-Host` (its first value) when the app
 * trusts the immediate peer, else `Host`. Express 4 has no such getter (its `req.host` is the deprecated `hostname`,
 * without the port), so the same rule is applied here for both, using the app's compiled `trust proxy fn`.
 */
function resolveHost(req: OriginRequest, trust: TrustProxy): string | undefined {
  const forwarded = headerValue(req, "x-forwarded-host")
  if (forwarded && trust(req.socket?.remoteAddress, 0)) {
    const comma = forwarded.indexOf(",")
    return (comma === -1 ? forwarded : forwarded.slice(0, comma)).trim()
  }
  return headerValue(req, "host")?.trim()
}

/**
 * The forwarded headers (`X-Forwarded-Proto`, `X-Forwarded-Host`) the request carries but the app's `trust proxy` does
 * not let count for its immediate peer: `[]` when there are none, or when they are trusted.
 *
 * @example
 * ```ts
 * ignoredForwardedHeaders(req) // ["x-forwarded-proto"] behind an https proxy with trust proxy off
 * ```
 */
export function ignoredForwardedHeaders(req: OriginRequest): string[] {
  // Asked twice on every auth request: most carry neither header.
  if (req.headers["x-forwarded-proto"] === undefined && req.headers["x-forwarded-host"] === undefined) return []
  const present = ["x-forwarded-proto", "x-forwarded-host"].filter((name) => headerValue(req, name))
  if (present.length === 0 || trustProxyOf(req)(req.socket?.remoteAddress, 0)) return []
  return present
}

function trustProxyOf(req: OriginRequest): TrustProxy {
  const fn = req.app?.get("trust proxy fn")
  return typeof fn === "function" ? (fn as TrustProxy) : () => false
}

function socketProtocol(req: OriginRequest): string {
  return (req.socket as { encrypted?: boolean } | undefined)?.encrypted ? "https" : "http"
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

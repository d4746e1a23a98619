/** `getToken`: reads the session JWE from a request (chunked cookie, else `Authorization: Bearer`) and decodes it. */
import { parseCookieHeader, readSessionCookie } from "../cookie-header"
import { MissingSecret } from "../errors"
import type { JWT } from "../models"
import { decodeOrThrow } from "./decode"
import { toSecretList } from "./keys"
import { createPayloadCache, type PayloadCache } from "./payload-cache"
import type { GetTokenParams, GetTokenResult } from "./types"

const SESSION_COOKIE = "authjs.session-token"
const SECURE_PREFIX = "__Secure-"

// RFC 7235: credentials = auth-scheme 1*SP token68; the scheme is case-insensitive. The token may be percent-encoded.
const BEARER = /^Bearer +([^\s]+) *$/i

type HeaderSource = GetTokenParams["req"]["headers"]

/**
 * Finds the session token in a request and decodes it. The token comes from the session cookie (reassembled from
 * `<name>.0`, `<name>.1`, ... chunks) or else from `Authorization: Bearer <percent-encoded token>`. Resolves `null`
 * when there is no token or it does not decode; with `raw: true` resolves the token string instead.
 *
 * @throws MissingSecret when a token is found, `raw` is not set and `secret` is missing.
 * @example
 * ```ts
 * app.get("/api/me", async (req, res) => {
 *   const token = await getToken({ req: { headers: req.headers }, secret: process.env.AUTH_SECRET })
 *   res.json(token)
 * })
 * ```
 */
export async function getToken<R extends boolean = false>(params: GetTokenParams<R>): Promise<GetTokenResult<R>> {
  const { req, secureCookie = false, raw, logger } = params
  const cookieName = params.cookieName ?? (secureCookie ? `${SECURE_PREFIX}${SESSION_COOKIE}` : SESSION_COOKIE)
  const salt = params.salt ?? cookieName

  const token = readToken(req?.headers, cookieName)
  if (!token) return null
  if (raw) return token as GetTokenResult<R>

  const { secret } = params
  if (!secret || secret.length === 0) throw new MissingSecret("Must pass `secret` if not set to JWT getToken()")

  try {
    const decoded = params.decode
      ? await params.decode({ token, secret, salt })
      : await decodeCached(token, toSecretList(secret), salt)
    return (decoded ?? null) as GetTokenResult<R>
  } catch (err) {
    try {
      logger?.debug("getToken: token rejected", { reason: err instanceof Error ? err.message : "unknown" })
    } catch {
      // A broken logger must not turn a rejected token into a thrown request.
    }
    return null
  }
}

// Payloads the built-in decoder accepted, per (salt, secret list), so an API route calling `getToken` on every request
// pays a lookup as the session read does. At most MAX_CONTEXTS such pairs (a deployment has a few cookie names).
const MAX_CONTEXTS = 16
const payloads = new Map<string, PayloadCache<JWT>>()

function payloadsOf(secrets: readonly string[], salt: string): PayloadCache<JWT> {
  // Each part length-prefixed, so no two (salt, secret list) pairs share an id.
  const id = [salt, ...secrets].map((part) => `${part.length}:${part}`).join("")
  let cache = payloads.get(id)
  if (!cache) {
    if (payloads.size >= MAX_CONTEXTS) payloads.clear()
    cache = createPayloadCache<JWT>()
    payloads.set(id, cache)
  }
  return cache
}

// The cache keeps its own copy and hands out copies: a caller may change the token it gets.
async function decodeCached(token: string, secrets: readonly string[], salt: string): Promise<JWT | null> {
  const cache = payloadsOf(secrets, salt)
  const kept = cache.get(token, Math.floor(Date.now() / 1000))
  if (kept) return structuredClone(kept)
  const decoded = await decodeOrThrow({ token, secret: secrets, salt })
  if (decoded) cache.set(token, structuredClone(decoded), decoded.exp)
  return decoded
}

function readToken(headers: HeaderSource | undefined, cookieName: string): string | undefined {
  const cookieHeader = joinValues(readHeader(headers, "cookie"), "; ")
  const fromCookie = cookieHeader ? readChunkedCookie(cookieHeader, cookieName) : undefined
  if (fromCookie) return fromCookie

  // Several Authorization headers are ambiguous; like Node, only the first counts.
  const authorization = firstValue(readHeader(headers, "authorization"))
  const match = authorization ? BEARER.exec(authorization) : null
  if (!match) return undefined
  try {
    return decodeURIComponent(match[1])
  } catch {
    // Malformed percent-encoding (`%`, `%A`, `%ZZ`) is bad input, not an error of ours.
    return undefined
  }
}

// Every cookie named `<base>` or `<base>.<n>`, ordered by n (the unsuffixed one first), values concatenated.
function readChunkedCookie(header: string, base: string): string | undefined {
  return readSessionCookie(parseCookieHeader(header), base).value
}

function readHeader(headers: HeaderSource | undefined, name: string): string | readonly string[] | undefined {
  if (headers === null || typeof headers !== "object") return undefined
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined
  const record = headers as Record<string, unknown>
  // Plain records may not be lower-cased (Node's are; hand-built ones often are not).
  const key = name in record ? name : Object.keys(record).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : record[key]
  if (typeof value === "string") return value
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string")
  return undefined
}

function joinValues(value: string | readonly string[] | undefined, separator: string): string | undefined {
  return typeof value === "string" ? value : value?.join(separator)
}

function firstValue(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === "string" ? value : value?.[0]
}

/** Step 3 of tokens.md T4.3: a JWT access token (RFC 9068), each failure with its own code, in the spec's order. */
import { compactVerify } from "jose"
import type { AccessTokenErrorCode } from "../errors"
import type { IssuerKeys } from "./keys"
import type { ResolvedResourceOptions } from "./options"

/** A refusal code, or the verified header and claims. */
export type JwtOutcome =
  | { ok: true; header: Record<string, unknown>; payload: Record<string, unknown> }
  | { ok: false; code: AccessTokenErrorCode; payload?: Record<string, unknown> }

const SEGMENT = /^[A-Za-z0-9_-]+$/

/** Whether a token has the shape of a compact JWS (three base64url segments). */
export function looksLikeJwt(token: string): boolean {
  const parts = token.split(".")
  // An empty signature is still a JWT (`alg: none`): refused as such, not sent to introspection.
  return parts.length === 3 && SEGMENT.test(parts[0]!) && SEGMENT.test(parts[1]!) && /^[A-Za-z0-9_-]*$/.test(parts[2]!)
}

function parseSegment(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"))
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null
  } catch {
    return null
  }
}

/**
 * The claim checks a JWT and an introspection answer share: `iss`, `aud`, `exp`, `nbf` (and `iat` for JWTs).
 *
 * @example
 * ```ts
 * const code = checkClaims(options, payload, { iat: true, issuerRequired: true })
 * ```
 */
export function checkClaims(
  options: ResolvedResourceOptions,
  payload: Record<string, unknown>,
  rules: { iat: boolean; issuerRequired: boolean; audienceRequired: boolean },
): AccessTokenErrorCode | undefined {
  const now = Math.floor(Date.now() / 1000)
  const tolerance = options.clockTolerance
  if (payload.iss !== undefined || rules.issuerRequired) {
    if (payload.iss !== options.issuer) return "wrong_issuer"
  }
  const aud = payload.aud
  if (aud !== undefined || rules.audienceRequired) {
    const audiences = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : []
    if (!audiences.some((a) => typeof a === "string" && options.audiences.includes(a))) return "wrong_audience"
  }
  if (typeof payload.exp !== "number" || payload.exp <= now - tolerance) {
    if (rules.iat || payload.exp !== undefined) return "expired"
  }
  if (payload.nbf !== undefined && (typeof payload.nbf !== "number" || payload.nbf > now + tolerance)) {
    return "not_yet_valid"
  }
  if (rules.iat && payload.iat !== undefined) {
    if (typeof payload.iat !== "number" || payload.iat > now + tolerance) return "iat_invalid"
    if (options.maxTokenAge !== undefined && payload.iat < now - options.maxTokenAge - tolerance) return "iat_invalid"
  }
  return undefined
}

/**
 * Verifies a JWT access token against the issuer's keys and the options.
 *
 * @example
 * ```ts
 * const outcome = await verifyJwt(options, keys, token)
 * ```
 */
export async function verifyJwt(
  options: ResolvedResourceOptions,
  keys: IssuerKeys,
  token: string,
): Promise<JwtOutcome> {
  const [headerPart] = token.split(".", 1)
  const header = parseSegment(headerPart!)
  if (!header || typeof header.alg !== "string") return { ok: false, code: "malformed_token" }
  const alg = header.alg
  if (alg === "none" || alg.toUpperCase().startsWith("HS") || !options.algorithms.has(alg)) {
    return { ok: false, code: "alg_not_allowed" }
  }
  const typ = typeof header.typ === "string" ? header.typ.toLowerCase() : undefined
  const rfc9068 = typ === "at+jwt" || typ === "application/at+jwt"
  if (!rfc9068 && !(options.allowPlainJwt && (typ === undefined || typ === "jwt")))
    return { ok: false, code: "wrong_type" }
  if (header.kid !== undefined && typeof header.kid !== "string") return { ok: false, code: "malformed_token" }
  const key = await keys.keyFor(alg, header.kid as string | undefined)
  if (!key) return { ok: false, code: "unknown_key" }
  let payloadBytes: Uint8Array
  try {
    ;({ payload: payloadBytes } = await compactVerify(token, key, { algorithms: [alg] }))
  } catch {
    return { ok: false, code: "bad_signature" }
  }
  let payload: Record<string, unknown> | null = null
  try {
    const value: unknown = JSON.parse(Buffer.from(payloadBytes).toString("utf8"))
    if (value !== null && typeof value === "object" && !Array.isArray(value)) payload = value as Record<string, unknown>
  } catch {
    payload = null
  }
  if (!payload) return { ok: false, code: "malformed_token" }
  const code = checkClaims(options, payload, { iat: true, issuerRequired: true, audienceRequired: true })
  if (code) return { ok: false, code, payload }
  if (!options.allowPlainJwt) {
    const strings = ["sub", "client_id", "jti"].every(
      (name) => typeof payload[name] === "string" && payload[name] !== "",
    )
    if (!strings || typeof payload.iat !== "number") return { ok: false, code: "missing_claim", payload }
  }
  return { ok: true, header, payload }
}

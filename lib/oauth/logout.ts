/** OpenID Connect logout on the OP side of the wire: the end-session endpoint and back-channel logout tokens. */
import { compactVerify, decodeProtectedHeader } from "jose"
import { tenantAllowed, tenantIssuer } from "./entra"
import { allowedAlgorithms, keySetFor } from "./id-token"
import { resolveServer } from "./server"
import { engineError } from "./engine-error"
import type { ResolvedOAuthProvider } from "./types"

/** The event member a logout token must carry (Back-Channel Logout 1.0 §2.4). */
export const BACKCHANNEL_EVENT = "http://schemas.openid.net/event/backchannel-logout"
/** Clock skew accepted on `iat` and `exp`, in seconds. */
const SKEW = 60
/** A logout token older than this (seconds since `iat`) is refused whatever its `exp` (C.2 rule 3). */
const MAX_AGE = 600

/**
 * The provider's end-session endpoint: `logout.endSessionEndpoint`, else `end_session_endpoint` from discovery (OIDC
 * providers with an issuer only). Undefined when neither exists; a failed discovery also yields undefined.
 *
 * @example
 * ```ts
 * await endSessionEndpointOf(provider) // "https://op.example/session/end"
 * ```
 */
export async function endSessionEndpointOf(provider: ResolvedOAuthProvider): Promise<string | undefined> {
  if (provider.logout?.endSessionEndpoint) return provider.logout.endSessionEndpoint
  if (provider.type !== "oidc" || !provider.issuer) return undefined
  try {
    const as = await resolveServer(provider, "callback")
    return typeof as.end_session_endpoint === "string" ? as.end_session_endpoint : undefined
  } catch {
    return undefined
  }
}

/** The claims of a verified logout token that the receiver acts on. */
export interface LogoutClaims {
  iss: string
  sub?: string
  sid?: string
  iat: number
  exp: number
  jti: string
}

/** A logout token that failed a check; `message` is safe to send back as `error_description`. */
export class LogoutTokenError extends Error {}

function nonEmpty(value: unknown, max = Infinity): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= max
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
}

/**
 * Verifies a back-channel logout token (Back-Channel Logout 1.0 §2.6): JWS signed with one of
 * the provider's ID-token algorithms (never `none`; HS* only when the client registered it) by a key of the issuer's
 * JWKS, `typ` logout+jwt when present, exact `iss`, `aud` exactly this client, `iat`/`exp` within 60 s of skew and at
 * most 600 s old, a `jti`, the back-channel `events` member as an object, no `nonce`, and `sub` and/or `sid`.
 *
 * @throws LogoutTokenError naming the first failed check.
 * @example
 * ```ts
 * const claims = await verifyLogoutToken(provider, body.logout_token)
 * ```
 */
export async function verifyLogoutToken(provider: ResolvedOAuthProvider, token: string): Promise<LogoutClaims> {
  let header
  try {
    header = decodeProtectedHeader(token)
  } catch {
    throw new LogoutTokenError("malformed logout token")
  }
  if (token.split(".").length !== 3) throw new LogoutTokenError("the logout token must be a JWS")
  const { alg, typ } = header
  if (typ !== undefined && !(typeof typ === "string" && /^(application\/)?logout\+jwt$/i.test(typ))) {
    throw new LogoutTokenError("unexpected typ")
  }
  const as = await resolveServer(provider, "callback")
  const algorithms = allowedAlgorithms(provider, as)
  if (!alg || alg === "none" || !algorithms.includes(alg)) throw new LogoutTokenError("unexpected alg")
  let payloadBytes: Uint8Array
  try {
    if (alg.startsWith("HS")) {
      if (!provider.clientSecret) throw new LogoutTokenError("unexpected alg")
      const key = new TextEncoder().encode(provider.clientSecret)
      payloadBytes = (await compactVerify(token, key, { algorithms: [alg] })).payload
    } else {
      if (!as.jwks_uri) throw new LogoutTokenError("the issuer has no jwks_uri")
      const keys = keySetFor(provider, as.jwks_uri)
      payloadBytes = (await compactVerify(token, keys.getKey, { algorithms: [alg] })).payload
    }
  } catch (error) {
    if (error instanceof LogoutTokenError) throw error
    // The library's code stays in the cause (`cause.cause.code`), never in the message the OP is answered with.
    throw new LogoutTokenError("invalid signature", { cause: engineError(provider, error) })
  }
  let claims: Record<string, unknown>
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(payloadBytes))
    if (!isObject(parsed)) throw new Error("not an object")
    claims = parsed
  } catch {
    throw new LogoutTokenError("malformed claims")
  }
  let issuer = as.issuer
  if (provider.entra && provider.entra.mode !== "single") {
    // Multi-tenant Entra: the token names its tenant, which must still be allowed to have sessions here.
    issuer = tenantIssuer(provider.entra, claims) ?? ""
    if (!issuer) throw new LogoutTokenError("unexpected iss")
    if (!(await tenantAllowed(provider.entra, claims))) throw new LogoutTokenError("tenant not allowed")
  }
  return checkClaims(provider, issuer, claims)
}

function checkClaims(provider: ResolvedOAuthProvider, issuer: string, claims: Record<string, unknown>): LogoutClaims {
  const { iss, aud, iat, exp, jti, events, sub, sid } = claims
  if (iss !== issuer) throw new LogoutTokenError("unexpected iss")
  const audiences = Array.isArray(aud) ? aud : [aud]
  if (!audiences.includes(provider.clientId)) throw new LogoutTokenError("aud does not name this client")
  if (audiences.some((a) => a !== provider.clientId)) throw new LogoutTokenError("unexpected extra audience")
  const now = Math.floor(Date.now() / 1000)
  if (typeof iat !== "number" || !Number.isFinite(iat)) throw new LogoutTokenError("missing iat")
  if (iat > now + SKEW) throw new LogoutTokenError("iat is in the future")
  if (now - iat > MAX_AGE) throw new LogoutTokenError("the logout token is too old")
  if (typeof exp !== "number" || !Number.isFinite(exp)) throw new LogoutTokenError("missing exp")
  if (exp <= now - SKEW) throw new LogoutTokenError("the logout token has expired")
  if (!nonEmpty(jti, 256)) throw new LogoutTokenError("missing or invalid jti")
  if (!isObject(events) || !isObject(events[BACKCHANNEL_EVENT])) throw new LogoutTokenError("missing logout event")
  if ("nonce" in claims) throw new LogoutTokenError("nonce is not allowed")
  if (sub !== undefined && !nonEmpty(sub)) throw new LogoutTokenError("invalid sub")
  if (sid !== undefined && !nonEmpty(sid)) throw new LogoutTokenError("invalid sid")
  if (sub === undefined && sid === undefined) throw new LogoutTokenError("neither sub nor sid")
  return { iss, sub, sid, iat, exp, jti } as LogoutClaims
}

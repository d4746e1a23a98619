/** `accessTokens` (tokens.md T3.1): access tokens for other services, checked once at construction. */
import { InvalidConfig } from "../../../errors"
import type { AccessTokenAlg, AccessTokensOptions, PrivateJwk } from "../types/tokens"

export type { AccessTokenAlg, AccessTokenClaimsParams, AccessTokensOptions, PrivateJwk } from "../types/tokens"

const ALGS: readonly AccessTokenAlg[] = ["ES256", "EdDSA", "RS256"]

/** The options with defaults, as the core uses them. */
export interface ResolvedAccessTokens {
  readonly audiences: readonly string[]
  readonly issuer?: string
  readonly ttl: number
  readonly alg: AccessTokenAlg
  readonly keys?: readonly PrivateJwk[]
  readonly rotation: { readonly every: number; readonly overlap: number }
  readonly scopes: readonly string[]
  readonly clientId: string
  readonly claims?: AccessTokensOptions["claims"]
}

const fail = (field: string, why: string): never => {
  throw new InvalidConfig(`accessTokens.${field} ${why}`, { cause: { option: `accessTokens.${field}` } })
}

function checkKey(jwk: unknown, index: number, kids: Set<string>): PrivateJwk {
  const field = `keys[${index}]`
  if (jwk === null || typeof jwk !== "object") return fail(field, "must be a private JWK")
  const key = jwk as Record<string, unknown>
  if (typeof key.d !== "string" || key.d === "") fail(field, "must be a private key (d)")
  if (typeof key.kid !== "string" || key.kid === "" || kids.has(key.kid)) fail(field, "needs a unique kid")
  if (!ALGS.includes(key.alg as AccessTokenAlg)) fail(field, `needs an alg of ${ALGS.join(", ")}`)
  const fits =
    (key.alg === "ES256" && key.kty === "EC" && key.crv === "P-256") ||
    (key.alg === "EdDSA" && key.kty === "OKP" && key.crv === "Ed25519") ||
    (key.alg === "RS256" &&
      key.kty === "RSA" &&
      typeof key.n === "string" &&
      Buffer.from(key.n, "base64url").length * 8 >= 2048)
  if (!fits) fail(field, "must be EC P-256 (ES256), OKP Ed25519 (EdDSA) or RSA ≥ 2048 bits (RS256), never oct")
  kids.add(key.kid as string)
  return Object.freeze({ ...key }) as PrivateJwk
}

/**
 * Checks `accessTokens` and applies the defaults; `undefined` when the feature is off.
 *
 * @example
 * ```ts
 * const accessTokens = resolveAccessTokens(config.accessTokens, { production, authUrl })
 * ```
 */
export function resolveAccessTokens(
  options: AccessTokensOptions | undefined,
  context: { production: boolean; authUrl?: URL },
): ResolvedAccessTokens | undefined {
  if (options === undefined) return undefined
  if (options === null || typeof options !== "object") return fail("", "must be an object")
  const audiences = typeof options.audience === "string" ? [options.audience] : options.audience
  if (!Array.isArray(audiences) || audiences.length === 0 || audiences.some((a) => typeof a !== "string" || !a)) {
    fail("audience", "must be a non-empty string or array of strings")
  }
  const ttl = options.ttl ?? 900
  if (!Number.isInteger(ttl) || ttl < 60 || ttl > 86400) fail("ttl", "must be whole seconds from 60 to 86400")
  const alg = options.alg ?? "ES256"
  if (!ALGS.includes(alg)) fail("alg", `must be one of ${ALGS.join(", ")}`)
  const every = options.rotation?.every ?? 2592000
  const overlap = options.rotation?.overlap ?? 86400
  if (!(every > 0)) fail("rotation.every", "must be a positive number of seconds")
  if (!(overlap >= ttl + 60)) fail("rotation.overlap", "must be at least ttl + 60 seconds")
  const kids = new Set<string>()
  const keys = options.keys === undefined ? undefined : options.keys.map((key, i) => checkKey(key, i, kids))
  if (keys !== undefined && keys.length === 0) fail("keys", "must hold at least one key")
  const scopes = options.scopes ?? []
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== "string" || !s || /\s/.test(s))) {
    fail("scopes", "must be an array of scope tokens")
  }
  if (options.issuer !== undefined && (typeof options.issuer !== "string" || !/^https?:\/\//.test(options.issuer))) {
    fail("issuer", "must be an http(s) URL")
  }
  if (context.production && options.issuer === undefined && context.authUrl === undefined) {
    fail("issuer", "is required in production without AUTH_URL (an issuer from a Host header is refused)")
  }
  return Object.freeze({
    audiences: Object.freeze([...audiences]),
    ...(options.issuer !== undefined ? { issuer: options.issuer.replace(/\/+$/, "") } : {}),
    ttl,
    alg,
    ...(keys ? { keys: Object.freeze(keys) } : {}),
    rotation: Object.freeze({ every, overlap }),
    scopes: Object.freeze([...scopes]),
    clientId: options.clientId ?? "gatehouse",
    ...(options.claims ? { claims: options.claims } : {}),
  })
}

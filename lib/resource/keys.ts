/**
 * The issuer's metadata and keys for one verifier (tokens.md T4.5): discovery cached for an hour, the JWKS for 600 s,
 * and one refetch for an unknown `kid` at most once a minute, concurrent refetches coalesced.
 */
import { importJWK, type JWK } from "jose"
import { fetchJson, IssuerUnavailable } from "./http"
import type { ResolvedResourceOptions } from "./options"

const DISCOVERY_TTL = 3600_000
const JWKS_TTL = 600_000
const UNKNOWN_KID_INTERVAL = 60_000

type VerifyKey = Awaited<ReturnType<typeof importJWK>>

/** Whether a JWK can verify a signature of `alg` (its type and curve fit; its own `alg` and `use`, when set, agree). */
export function keyFits(jwk: JWK, alg: string): boolean {
  if (jwk.use !== undefined && jwk.use !== "sig") return false
  if (jwk.alg !== undefined && jwk.alg !== alg) return false
  if (typeof jwk.d === "string" || jwk.kty === "oct") return false
  if (alg.startsWith("RS") || alg.startsWith("PS")) return jwk.kty === "RSA"
  if (alg === "ES256") return jwk.kty === "EC" && jwk.crv === "P-256"
  if (alg === "ES384") return jwk.kty === "EC" && jwk.crv === "P-384"
  if (alg === "ES512") return jwk.kty === "EC" && jwk.crv === "P-521"
  if (alg === "EdDSA" || alg === "Ed25519") return jwk.kty === "OKP" && jwk.crv === "Ed25519"
  return false
}

interface JwksState {
  keys: JWK[]
  fetchedAt: number
}

/** The issuer side of one verifier. */
export class IssuerKeys {
  private discovered?: { at: number; document: Record<string, unknown> }
  private discovering?: Promise<Record<string, unknown>>
  private jwks?: JwksState
  private fetchingJwks?: Promise<JwksState>
  private lastUnknownRefetch = -Infinity
  private readonly imported = new Map<string, Promise<VerifyKey>>()
  /** JWKS requests made (for tests and the bench). */
  jwksFetches = 0

  constructor(private readonly options: ResolvedResourceOptions) {}

  /** The discovery document (OpenID, else RFC 8414), checked against `issuer`; cached for an hour. */
  async discovery(): Promise<Record<string, unknown>> {
    if (this.discovered && Date.now() - this.discovered.at < DISCOVERY_TTL) return this.discovered.document
    this.discovering ??= this.discover().finally(() => (this.discovering = undefined))
    return this.discovering
  }

  private async discover(): Promise<Record<string, unknown>> {
    const { issuer, httpTimeout } = this.options
    const url = new URL(issuer)
    const path = url.pathname.replace(/\/+$/, "")
    const candidates = [
      `${url.origin}${path}/.well-known/openid-configuration`,
      `${url.origin}/.well-known/oauth-authorization-server${path}`,
    ]
    for (const candidate of candidates) {
      const document = await fetchJson(candidate, { timeout: httpTimeout, passStatuses: [404] })
      if (document === null) continue
      if (document.issuer !== issuer) throw new IssuerUnavailable("discovery issuer mismatch")
      this.discovered = { at: Date.now(), document }
      return document
    }
    throw new IssuerUnavailable("no discovery document")
  }

  private async jwksUri(): Promise<string> {
    if (this.options.jwksUri) return this.options.jwksUri
    const uri = (await this.discovery()).jwks_uri
    if (typeof uri !== "string") throw new IssuerUnavailable("no jwks_uri")
    return uri
  }

  private fetchJwks(): Promise<JwksState> {
    this.fetchingJwks ??= (async () => {
      const uri = await this.jwksUri()
      this.jwksFetches++
      const document = await fetchJson(uri, { timeout: this.options.httpTimeout })
      const keys = Array.isArray(document?.keys) ? (document.keys as unknown[]) : null
      if (keys === null) throw new IssuerUnavailable("not a JWKS")
      const state = {
        keys: keys.filter((k): k is JWK => k !== null && typeof k === "object" && !Array.isArray(k)),
        fetchedAt: Date.now(),
      }
      this.jwks = state
      this.imported.clear()
      return state
    })().finally(() => (this.fetchingJwks = undefined))
    return this.fetchingJwks
  }

  private async currentJwks(): Promise<JwksState> {
    if (this.jwks && Date.now() - this.jwks.fetchedAt < JWKS_TTL) return this.jwks
    return this.fetchJwks()
  }

  /**
   * The key that verifies a token of `alg` and `kid`: `null` when the JWKS has none, after at most one refetch a
   * minute for an unknown `kid`. Throws {@link IssuerUnavailable} when the issuer cannot be reached.
   */
  async keyFor(alg: string, kid: string | undefined): Promise<VerifyKey | null> {
    let jwks = await this.currentJwks()
    let jwk = pick(jwks.keys, alg, kid)
    if (!jwk && kid !== undefined && Date.now() - this.lastUnknownRefetch >= UNKNOWN_KID_INTERVAL) {
      this.lastUnknownRefetch = Date.now()
      jwks = await this.fetchJwks()
      jwk = pick(jwks.keys, alg, kid)
    }
    if (!jwk) return null
    const cacheKey = `${alg}:${jwk.kid ?? ""}:${jwk.x ?? jwk.n ?? ""}`
    let key = this.imported.get(cacheKey)
    if (!key) {
      key = importJWK({ ...jwk, alg }, alg === "Ed25519" ? "EdDSA" : alg) as Promise<VerifyKey>
      this.imported.set(cacheKey, key)
    }
    try {
      return await key
    } catch {
      this.imported.delete(cacheKey)
      return null
    }
  }
}

function pick(keys: readonly JWK[], alg: string, kid: string | undefined): JWK | undefined {
  const candidates = keys.filter((key) => keyFits(key, alg))
  if (kid === undefined) return candidates.length === 1 ? candidates[0] : undefined
  return candidates.find((key) => key.kid === kid)
}

/** DPoP proofs for DPoP-bound access tokens (RFC 9449 sections 4.3 and 7; tokens.md T4.7), in the spec's order. */
import { createHash } from "node:crypto"
import { calculateJwkThumbprint, compactVerify, importJWK, type JWK } from "jose"
import type { AccessTokenErrorCode } from "../errors"
import { keyFits } from "./keys"
import type { ResolvedResourceOptions } from "./options"

const sha256 = (value: string) => createHash("sha256").update(value).digest("base64url")

function parseHeader(proof: string): Record<string, unknown> | null {
  const parts = proof.split(".")
  if (parts.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]+$/.test(p))) return null
  try {
    const value: unknown = JSON.parse(Buffer.from(parts[0]!, "base64url").toString("utf8"))
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null
  } catch {
    return null
  }
}

/** A URL without its query and fragment, for comparing `htu`. */
function bareUrl(value: string): string | null {
  try {
    const url = new URL(value)
    url.search = ""
    url.hash = ""
    return url.href
  } catch {
    return null
  }
}

/**
 * Checks the DPoP proof of a request presenting a token bound to `jkt`; `undefined` when it is good (its `jti` then
 * spent in the store), else the refusal code.
 *
 * @example
 * ```ts
 * const code = await checkDpopProof(options, { proofs, method: "GET", url }, token, jkt)
 * ```
 */
export async function checkDpopProof(
  options: ResolvedResourceOptions,
  request: { proofs: string | null; method: string; url: string },
  token: string,
  jkt: string,
): Promise<AccessTokenErrorCode | undefined> {
  if (request.proofs === null || request.proofs.trim() === "") return "dpop_missing"
  const proof = request.proofs.trim()
  if (proof.includes(",")) return "dpop_malformed"
  const header = parseHeader(proof)
  if (!header || header.typ !== "dpop+jwt" || typeof header.alg !== "string") return "dpop_malformed"
  const alg = header.alg
  const jwk = header.jwk as JWK | undefined
  if (!options.algorithms.has(alg) || jwk === null || typeof jwk !== "object" || Array.isArray(jwk)) {
    return "dpop_malformed"
  }
  if ("d" in jwk || !keyFits({ ...jwk, use: undefined, alg: undefined }, alg)) return "dpop_malformed"
  let payload: Record<string, unknown>
  try {
    const key = await importJWK(jwk, alg === "Ed25519" ? "EdDSA" : alg)
    const verified = await compactVerify(proof, key, { algorithms: [alg] })
    payload = JSON.parse(Buffer.from(verified.payload).toString("utf8")) as Record<string, unknown>
  } catch {
    return "dpop_bad_signature"
  }
  if (payload === null || typeof payload !== "object") return "dpop_malformed"
  const { htm, htu, iat, jti, ath } = payload
  if (typeof htm !== "string" || typeof htu !== "string" || typeof iat !== "number" || typeof ath !== "string") {
    return "dpop_malformed"
  }
  if (typeof jti !== "string" || jti.length < 1 || jti.length > 256) return "dpop_malformed"
  if ((await calculateJwkThumbprint(jwk, "sha256")) !== jkt) return "dpop_key_mismatch"
  if (ath !== sha256(token)) return "dpop_ath_mismatch"
  if (htm !== request.method) return "dpop_htm_mismatch"
  const expected = bareUrl(request.url)
  if (expected === null || bareUrl(htu) !== expected) return "dpop_htu_mismatch"
  const now = Math.floor(Date.now() / 1000)
  if (iat < now - options.dpop.maxAge || iat > now + options.clockTolerance) return "dpop_iat"
  // Last, so an invalid proof never spends a `jti`.
  const fresh = await options.store.consume(
    `dpop-jti:${sha256(`${jkt}:${jti}`)}`,
    options.dpop.maxAge + options.clockTolerance,
  )
  return fresh ? undefined : "dpop_replay"
}

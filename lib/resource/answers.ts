/** The refusals of `gatehouse-auth/resource` (tokens.md T4.4): RFC 6750 section 3 and RFC 9449 section 7.1 answers. */
import { AccessTokenError, type AccessTokenErrorCode } from "../errors"
import { DPOP_ALGS, type ResolvedResourceOptions } from "./options"

/** A fixed sentence per code: never a token, a claim value or key material. */
const descriptions: Record<AccessTokenErrorCode, string> = {
  missing_token: "An access token is required.",
  token_in_url: "Access tokens are accepted only in the Authorization header.",
  malformed_authorization: "The Authorization header is malformed.",
  malformed_token: "The access token is malformed.",
  unsupported_token: "The access token is of an unsupported kind.",
  alg_not_allowed: "The access token is signed with an algorithm that is not allowed.",
  wrong_type: "The access token is not of the type at+jwt.",
  unknown_key: "The access token is signed with an unknown key.",
  bad_signature: "The access token signature is invalid.",
  wrong_issuer: "The access token was issued by another issuer.",
  wrong_audience: "The access token is not meant for this resource.",
  expired: "The access token has expired.",
  not_yet_valid: "The access token is not valid yet.",
  iat_invalid: "The access token issue time is invalid.",
  missing_claim: "The access token lacks a required claim.",
  inactive: "The access token is not active.",
  dpop_bound_token_as_bearer: "The access token is DPoP-bound and must be sent with the DPoP scheme.",
  dpop_not_bound: "The access token is not DPoP-bound.",
  dpop_required: "A DPoP-bound access token is required.",
  dpop_missing: "A DPoP proof is required.",
  dpop_malformed: "The DPoP proof is malformed.",
  dpop_bad_signature: "The DPoP proof signature is invalid.",
  dpop_key_mismatch: "The DPoP proof key does not match the access token.",
  dpop_ath_mismatch: "The DPoP proof does not match the access token.",
  dpop_htm_mismatch: "The DPoP proof was made for another method.",
  dpop_htu_mismatch: "The DPoP proof was made for another URL.",
  dpop_iat: "The DPoP proof is too old or from the future.",
  dpop_replay: "The DPoP proof was already used.",
  insufficient_scope: "The access token lacks a required scope.",
  issuer_unavailable: "The authorization server is temporarily unavailable.",
}

const invalidRequest = new Set<AccessTokenErrorCode>(["token_in_url", "malformed_authorization"])
const dpopProof = new Set<AccessTokenErrorCode>([
  "dpop_missing",
  "dpop_malformed",
  "dpop_bad_signature",
  "dpop_key_mismatch",
  "dpop_ath_mismatch",
  "dpop_htm_mismatch",
  "dpop_htu_mismatch",
  "dpop_iat",
  "dpop_replay",
])

/** What the answer's challenge depends on besides the code. */
export interface RefusalContext {
  /** The request used the `DPoP` scheme, the token is DPoP-bound, or DPoP is required: the challenge is `DPoP`. */
  dpop: boolean
}

const quoted = (value: string) => `"${value.replace(/["\\]/g, "")}"`

/**
 * The refusal for `code`: status, RFC error, challenge and body (tokens.md T4.4).
 *
 * @example
 * ```ts
 * throw refusal(options, "expired", { dpop: false })
 * ```
 */
export function refusal(
  options: Pick<ResolvedResourceOptions, "realm" | "resourceMetadata" | "scopes" | "dpop">,
  code: AccessTokenErrorCode,
  context: RefusalContext,
): AccessTokenError {
  const description = descriptions[code]
  const headers: Record<string, string> = { "Cache-Control": "no-store" }
  const realm = options.realm === undefined ? [] : [`realm=${quoted(options.realm)}`]
  const metadata =
    options.resourceMetadata === undefined ? [] : [`resource_metadata=${quoted(options.resourceMetadata)}`]
  const algs = `algs=${quoted(DPOP_ALGS.join(" "))}`
  const challenge = (scheme: string, params: string[]) =>
    params.length === 0 ? scheme : `${scheme} ${params.join(", ")}`
  const dpop = context.dpop || options.dpop.required
  let status: number
  let error: string
  if (code === "issuer_unavailable") {
    return new AccessTokenError(description, {
      code,
      error: "temporarily_unavailable",
      status: 503,
      headers: { ...headers, "Retry-After": "5" },
    })
  } else if (code === "missing_token") {
    status = 401
    error = "unauthorized"
    headers["WWW-Authenticate"] = options.dpop.required
      ? challenge("DPoP", [algs, ...realm, ...metadata])
      : challenge("Bearer", [...realm, ...metadata])
  } else if (invalidRequest.has(code)) {
    status = 400
    error = "invalid_request"
    headers["WWW-Authenticate"] = challenge("Bearer", [
      `error="invalid_request"`,
      `error_description=${quoted(description)}`,
      ...realm,
    ])
  } else if (dpopProof.has(code)) {
    status = 401
    error = "invalid_dpop_proof"
    headers["WWW-Authenticate"] = challenge("DPoP", [
      `error="invalid_dpop_proof"`,
      `error_description=${quoted(description)}`,
      algs,
      ...realm,
      ...metadata,
    ])
  } else if (code === "insufficient_scope") {
    status = 403
    error = "insufficient_scope"
    headers["WWW-Authenticate"] = challenge(dpop ? "DPoP" : "Bearer", [
      `error="insufficient_scope"`,
      `error_description=${quoted(description)}`,
      `scope=${quoted(options.scopes.join(" "))}`,
      ...(dpop ? [algs] : []),
      ...realm,
    ])
  } else {
    status = 401
    error = "invalid_token"
    headers["WWW-Authenticate"] = challenge(dpop ? "DPoP" : "Bearer", [
      `error="invalid_token"`,
      `error_description=${quoted(description)}`,
      ...(dpop ? [algs] : []),
      ...realm,
      ...metadata,
    ])
  }
  return new AccessTokenError(description, { code, error, status, headers })
}

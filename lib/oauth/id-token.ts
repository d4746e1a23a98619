/** ID token checks beyond oauth4webapi's: signature verification against the issuer's JWKS (refetched once on an unknown key, rate-limited). */
import {
  compactVerify,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWSHeaderParameters,
} from "jose"
import type { AuthorizationServer } from "oauth4webapi"
import { OAuthProtocolError } from "../errors"
import { providerFetch } from "./fetch"
import { FAPI2_ALGORITHMS } from "./security"
import { assertSecureUrl } from "./server"
import type { ResolvedOAuthProvider } from "./types"

/** A cached JWKS is refreshed after this long, in ms. */
const JWKS_MAX_AGE = 10 * 60 * 1000
/** At most one refetch per this many ms is triggered by a token whose key is not in the cached JWKS (60 s). */
const UNKNOWN_KEY_COOLDOWN = 60 * 1000
/** Accepted clock skew for `iat`, in seconds. */
const CLOCK_TOLERANCE = 60
/** An ID token issued longer ago than this (seconds) is refused, even if `exp` is still ahead (IDT-09). */
const MAX_ID_TOKEN_AGE = 24 * 60 * 60

type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>

/** The keys of one `jwks_uri`: cached, fetched at most once at a time. */
class RemoteKeySet {
  private local?: KeyResolver
  private fetchedAt = 0
  private lastUnknownKeyRefetch = Number.NEGATIVE_INFINITY
  private pending?: Promise<void>

  constructor(
    private readonly url: URL,
    private readonly fetchImpl: typeof fetch,
  ) {}

  private refresh(): Promise<void> {
    this.pending ??= (async () => {
      try {
        const response = await this.fetchImpl(this.url.href, {
          headers: { accept: "application/json, application/jwk-set+json" },
        })
        if (response.status !== 200) throw new Error("JWKS request failed", { cause: { status: response.status } })
        const jwks = (await response.json()) as JSONWebKeySet
        this.local = createLocalJWKSet(jwks)
        this.fetchedAt = Date.now()
      } finally {
        this.pending = undefined
      }
    })()
    return this.pending
  }

  /** Resolves the verification key for a token; unknown `kid` → one refetch (key rotation), then fail. */
  readonly getKey: KeyResolver = async (header, token) => {
    if (!this.local || Date.now() - this.fetchedAt > JWKS_MAX_AGE) await this.refresh()
    try {
      return await (this.local as KeyResolver)(header, token)
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error
      if (Date.now() - this.lastUnknownKeyRefetch < UNKNOWN_KEY_COOLDOWN) throw error
      this.lastUnknownKeyRefetch = Date.now()
      await this.refresh()
      return (this.local as KeyResolver)(header, token)
    }
  }
}

const keySets = new WeakMap<ResolvedOAuthProvider, Map<string, RemoteKeySet>>()

export function keySetFor(provider: ResolvedOAuthProvider, jwksUri: string): RemoteKeySet {
  let byUri = keySets.get(provider)
  if (!byUri) keySets.set(provider, (byUri = new Map()))
  let set = byUri.get(jwksUri)
  if (!set) {
    const url = new URL(jwksUri)
    assertSecureUrl(provider, url, "jwks_uri")
    set = new RemoteKeySet(url, providerFetch(provider))
    byUri.set(jwksUri, set)
  }
  return set
}

export function allowedAlgorithms(provider: ResolvedOAuthProvider, as: AuthorizationServer): string[] {
  const registered = provider.client.id_token_signed_response_alg
  const algorithms = registered
    ? [registered]
    : (as.id_token_signing_alg_values_supported ?? ["RS256"]).filter((alg) => alg !== "none")
  // FAPI 2.0 accepts only PS256, ES256 and EdDSA signatures, whatever the server supports.
  return provider.security.fapi2 ? algorithms.filter((alg) => FAPI2_ALGORITHMS.includes(alg)) : algorithms
}

/**
 * Verifies the signature of an ID token whose claims oauth4webapi has already validated. Asymmetric algorithms use the
 * issuer's JWKS (key chosen by `kid`; without `kid` exactly one usable key must match; unusable keys are ignored);
 * HMAC algorithms use the client secret. `alg: none` passes only with `allowInsecureUnsignedIdTokens` and a client
 * registered with `id_token_signed_response_alg: "none"`. Also refuses an `iat` in the future or older than a day,
 * an `azp` naming another client, and an audience besides the client that the provider does not list as trusted.
 *
 * @throws OAuthProtocolError when the token does not verify: `cause.code` is jose's code (`ERR_JWS_…`, `ERR_JWKS_…`)
 *   or `ID_TOKEN_INVALID` for Gatehouse's own checks, `cause.reason` names the check.
 * @example
 * ```ts
 * await verifyIdToken(provider, as, tokens.id_token)
 * ```
 */
export async function verifyIdToken(
  provider: ResolvedOAuthProvider,
  as: AuthorizationServer,
  idToken: string,
): Promise<void> {
  const fail = (reason: string, cause?: unknown): Error => {
    const code = cause instanceof errors.JOSEError ? cause.code : "ID_TOKEN_INVALID"
    const err = cause instanceof Error ? cause : undefined
    return new OAuthProtocolError("ID token verification failed", {
      cause: { code, reason, provider: provider.id, ...(err ? { err } : {}) },
    })
  }
  let alg: string | undefined
  let typ: string | undefined
  try {
    ;({ alg, typ } = decodeProtectedHeader(idToken))
  } catch (error) {
    throw fail("malformed header", error)
  }
  // Token confusion: a logout token never passes as an ID token.
  if (typeof typ === "string" && /^(application\/)?logout\+jwt$/i.test(typ)) throw fail("logout token")
  if (alg === "none") {
    const registered = provider.client.id_token_signed_response_alg === "none"
    if (!provider.allowInsecureUnsignedIdTokens || !registered) throw fail("unsigned ID token")
  } else {
    const algorithms = allowedAlgorithms(provider, as)
    if (!alg || !algorithms.includes(alg)) throw fail("unexpected alg")
    const hmac = alg.startsWith("HS")
    if (hmac && !provider.clientSecret) throw fail("no client secret for an HMAC ID token")
    if (!hmac && !as.jwks_uri) throw fail("the issuer has no jwks_uri")
    try {
      if (hmac) {
        await compactVerify(idToken, new TextEncoder().encode(provider.clientSecret), { algorithms: [alg] })
      } else {
        const keys = keySetFor(provider, as.jwks_uri as string)
        await compactVerify(idToken, keys.getKey, { algorithms: algorithms.filter((a) => !a.startsWith("HS")) })
      }
    } catch (error) {
      throw fail(error instanceof errors.JOSEError ? error.code : "verification error", error)
    }
  }
  const { iat, azp, aud, events } = decodeJwt(idToken)
  if (events !== undefined) throw fail("logout token")
  // OIDC Core 3.1.3.7 item 3: an audience besides this client must be one the client trusts (oauth4webapi accepts any
  // extra audience once `azp` names this client).
  const untrusted = (Array.isArray(aud) ? aud : [aud]).filter(
    (a) => a !== provider.clientId && !provider.trustedAudiences.includes(String(a)),
  )
  if (untrusted.length > 0) throw fail("untrusted extra audience")
  const now = Math.floor(Date.now() / 1000)
  if (typeof iat !== "number" || iat > now + CLOCK_TOLERANCE || iat < now - MAX_ID_TOKEN_AGE) {
    throw fail("iat out of range")
  }
  // oauth4webapi checks `azp` only with several audiences; OIDC Core 3.1.3.7 item 5 applies whenever it is present.
  if (azp !== undefined && azp !== provider.clientId) throw fail("azp is another client")
}

/** Authorization server metadata (configured or discovered, cached per provider), client metadata and client auth. */
import { importJWK, type JWK } from "jose"
import * as oauth from "oauth4webapi"
import { providerFetch } from "./fetch"
import type { ResolvedOAuthProvider } from "./types"

/** How long discovered metadata is reused before it is fetched again, in ms. */
const METADATA_TTL = 10 * 60 * 1000
/** Issuer used for plain OAuth 2 servers configured without one; it never matches a real `iss`. */
const NO_ISSUER = "https://issuer.gatehouse.invalid"

const discovered = new WeakMap<ResolvedOAuthProvider, { at: number; value: Promise<oauth.AuthorizationServer> }>()

/**
 * Options every oauth4webapi request of this provider gets: the hardened fetch (its `customFetch`, `httpTimeout`, no
 * redirects) and the http-on-loopback switch.
 */
export function requestOptions(
  provider: ResolvedOAuthProvider,
): oauth.TokenEndpointRequestOptions & oauth.UserInfoRequestOptions & oauth.DiscoveryRequestOptions {
  return {
    [oauth.customFetch]: providerFetch(provider),
    [oauth.allowInsecureRequests]: provider.allowInsecureRequests,
  }
}

/** Fails unless `url` is https, or http with `allowInsecureRequests` on the provider. */
export function assertSecureUrl(provider: ResolvedOAuthProvider, url: URL, what: string): void {
  if (url.protocol === "https:") return
  if (url.protocol === "http:" && provider.allowInsecureRequests) return
  throw new TypeError(`${what} must use https`, { cause: { provider: provider.id, url: url.href } })
}

async function discover(provider: ResolvedOAuthProvider): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(provider.issuer as string)
  let response: Response
  if (provider.wellKnown) {
    const url = new URL(provider.wellKnown)
    assertSecureUrl(provider, url, "wellKnown")
    response = await providerFetch(provider)(url.href, { headers: { accept: "application/json" } })
  } else {
    response = await oauth.discoveryRequest(issuer, { ...requestOptions(provider), algorithm: "oidc" })
  }
  if (provider.entra && provider.entra.mode !== "single") return entraMetadata(provider.entra.metadataIssuer, response)
  // Rejects metadata whose `issuer` is not exactly the configured one (IDT-15).
  return oauth.processDiscoveryResponse(issuer, response)
}

/**
 * Microsoft Entra ID's multi-tenant metadata: fetched from `.../common/v2.0` but announcing the templated issuer
 * (`.../{tenantid}/v2.0`), or the consumer tenant's for `consumers`. Accepted only when `issuer` is exactly that
 * string; each token is then held to the tenant it names.
 */
async function entraMetadata(expected: string, response: Response): Promise<oauth.AuthorizationServer> {
  const body: unknown = response.status === 200 ? await response.json().catch(() => undefined) : undefined
  const metadata = body as oauth.AuthorizationServer | undefined
  if (!metadata || typeof metadata !== "object" || metadata.issuer !== expected) {
    throw new oauth.OperationProcessingError('"response" body "issuer" property does not match the expected value', {
      code: oauth.JSON_ATTRIBUTE_COMPARISON,
      cause: { expected, attribute: "issuer" },
    })
  }
  return metadata
}

function cachedDiscovery(provider: ResolvedOAuthProvider): Promise<oauth.AuthorizationServer> {
  const hit = discovered.get(provider)
  if (hit && Date.now() - hit.at < METADATA_TTL) return hit.value
  const value = discover(provider)
  discovered.set(provider, { at: Date.now(), value })
  value.catch(() => discovered.delete(provider))
  return value
}

/**
 * The authorization server metadata for a step of the flow: configured endpoints win; the rest is discovered from
 * the issuer. OIDC providers always discover, because ID tokens need the issuer's `jwks_uri`.
 *
 * @example
 * ```ts
 * const as = await resolveServer(provider, "callback")
 * as.token_endpoint // "https://op.example/token"
 * ```
 */
export async function resolveServer(
  provider: ResolvedOAuthProvider,
  step: "authorization" | "callback",
): Promise<oauth.AuthorizationServer> {
  const needsDiscovery =
    provider.issuer !== undefined &&
    (step === "authorization"
      ? // A pushing provider needs the metadata's PAR endpoint even when its authorization URL is configured.
        !provider.authorization.url || provider.security.par === true
      : provider.type === "oidc" || !provider.token.url || (!provider.userinfo.url && !provider.userinfo.request))
  const base: oauth.AuthorizationServer = needsDiscovery
    ? await cachedDiscovery(provider)
    : { issuer: provider.issuer ?? NO_ISSUER }
  const as: oauth.AuthorizationServer = {
    ...base,
    authorization_endpoint: provider.authorization.url ?? base.authorization_endpoint,
    token_endpoint: provider.token.url ?? base.token_endpoint,
    userinfo_endpoint: provider.userinfo.url ?? base.userinfo_endpoint,
  }
  return as
}

/**
 * The oauth4webapi client metadata of a provider.
 *
 * @example
 * ```ts
 * clientOf(provider) // { client_id: "id", id_token_signed_response_alg: "RS256" }
 * ```
 */
export function clientOf(provider: ResolvedOAuthProvider): oauth.Client {
  if (!provider.clientId) throw new TypeError("Missing clientId", { cause: { provider: provider.id } })
  const { token_endpoint_auth_method: _method, ...metadata } = provider.client
  return { ...metadata, client_id: provider.clientId }
}

/**
 * The token endpoint client authentication configured by `client.token_endpoint_auth_method`
 * (default `client_secret_basic`).
 *
 * @example
 * ```ts
 * const auth = await clientAuthOf(provider) // oauth4webapi ClientAuth
 * ```
 */
export async function clientAuthOf(provider: ResolvedOAuthProvider): Promise<oauth.ClientAuth> {
  const method: string = provider.client.token_endpoint_auth_method ?? "client_secret_basic"
  const secret = (): string => {
    if (!provider.clientSecret)
      throw new TypeError("Missing clientSecret", { cause: { provider: provider.id, method } })
    return provider.clientSecret
  }
  switch (method) {
    case "client_secret_basic":
      return oauth.ClientSecretBasic(secret())
    case "client_secret_post":
      return oauth.ClientSecretPost(secret())
    case "client_secret_jwt":
      return oauth.ClientSecretJwt(secret())
    case "private_key_jwt":
      return oauth.PrivateKeyJwt(await privateKeyOf(provider))
    case "none":
      return oauth.None()
    default:
      throw new TypeError("Unsupported client authentication method", { cause: { provider: provider.id, method } })
  }
}

async function privateKeyOf(provider: ResolvedOAuthProvider): Promise<CryptoKey | oauth.PrivateKey> {
  const key = provider.token.clientPrivateKey
  if (key instanceof CryptoKey) return key
  if (key && (key as { key?: unknown }).key instanceof CryptoKey) return key as unknown as oauth.PrivateKey
  if (key && typeof key === "object" && typeof key.kty === "string") {
    const jwk = key as JWK
    const alg = jwk.alg ?? (jwk.kty === "EC" ? "ES256" : jwk.kty === "OKP" ? "Ed25519" : "RS256")
    const imported = await importJWK({ ...jwk, alg }, alg)
    if (!(imported instanceof CryptoKey)) throw new TypeError("token.clientPrivateKey must be an asymmetric key")
    return { key: imported, kid: jwk.kid }
  }
  throw new TypeError("private_key_jwt needs token.clientPrivateKey", { cause: { provider: provider.id } })
}

/**
 * The high-security options of a provider, checked once at construction: `par`, `dpop`, `requestObject` (JAR) and the
 * `fapi2` preset, which refuses what the FAPI 2.0 Security Profile forbids so a misconfiguration fails at deploy time.
 */
import { InvalidConfig } from "../errors"
import type { LoggerInstance } from "../logger"
import type { OAuthConfig } from "../providers/types"

/** Signing algorithms FAPI 2.0 allows, for ID tokens, JARM and the relying party's own keys. */
export const FAPI2_ALGORITHMS: readonly string[] = Object.freeze(["PS256", "ES256", "EdDSA"])
/** Key algorithms a DPoP key may use. */
const DPOP_ALGORITHMS = new Set(["ES256", "PS256", "EdDSA"])
/** Longest request-object lifetime, in seconds (60 under `fapi2`). */
const MAX_REQUEST_OBJECT_LIFETIME = 300

/** A private key as the options give it: a `CryptoKey`, a private JWK, or `{ key, kid }`. */
export type PrivateKeyInput = CryptoKey | Record<string, unknown> | { key: CryptoKey; kid?: string }

/** `requestObject` after the construction checks. */
export interface ResolvedRequestObject {
  readonly key: PrivateKeyInput
  readonly alg: string
  readonly kid?: string
  /** Seconds between `iat` and `exp`. */
  readonly lifetime: number
}

/** The high-security settings of a resolved provider. */
export interface ResolvedSecurity {
  /** `true`/`false` as configured; `undefined`: push when the metadata or client registration requires it. */
  readonly par?: boolean
  readonly dpop?: { readonly alg: "ES256" | "PS256" | "EdDSA" }
  readonly requestObject?: ResolvedRequestObject
  readonly fapi2: boolean
}

type SecurityInput = Pick<
  OAuthConfig<unknown>,
  | "id"
  | "par"
  | "dpop"
  | "requestObject"
  | "securityProfile"
  | "client"
  | "token"
  | "checks"
  | "redirectProxyUrl"
  | "allowInsecureUnsignedIdTokens"
  | "allowInsecureRequests"
> & { profile?: unknown }

function invalid(id: string, code: "invalid_provider_option", option: string): InvalidConfig {
  return new InvalidConfig(`The "${id}" provider has an invalid \`${option}\` option`, {
    code,
    cause: { provider: id, option },
  })
}

/** The JWS algorithm of a key: the one asked for, else the JWK's `alg`, else the key type's usual one. */
function algorithmOf(key: unknown, asked: string | undefined): string | undefined {
  if (key instanceof CryptoKey) {
    const { name, hash, namedCurve } = key.algorithm as { name: string; hash?: { name: string }; namedCurve?: string }
    const bits = hash?.name.replace("SHA-", "")
    const fromKey =
      name === "ECDSA"
        ? { "P-256": "ES256", "P-384": "ES384", "P-521": "ES512" }[namedCurve ?? ""]
        : name === "RSA-PSS"
          ? `PS${bits}`
          : name === "RSASSA-PKCS1-v1_5"
            ? `RS${bits}`
            : name === "Ed25519"
              ? "EdDSA"
              : undefined
    // oauth4webapi names the Ed25519 algorithm after the key; EdDSA is its JOSE name.
    if (asked !== undefined && asked !== fromKey && !(asked === "Ed25519" && fromKey === "EdDSA")) return undefined
    return fromKey
  }
  const jwk = key as { kty?: unknown; crv?: unknown; alg?: unknown }
  const fromType =
    jwk.kty === "EC"
      ? { "P-256": "ES256", "P-384": "ES384", "P-521": "ES512" }[String(jwk.crv)]
      : jwk.kty === "RSA"
        ? "RS256"
        : jwk.kty === "OKP" && jwk.crv === "Ed25519"
          ? "EdDSA"
          : undefined
  const alg = asked ?? (typeof jwk.alg === "string" ? jwk.alg : fromType)
  if (alg === undefined || fromType === undefined) return undefined
  const family = { EC: /^ES/, RSA: /^(RS|PS)/, OKP: /^(EdDSA|Ed25519)$/ }[String(jwk.kty)]
  return family?.test(alg) ? alg : undefined
}

/** Whether `key` is a private asymmetric key: a private `CryptoKey`, `{ key, kid }` around one, or a JWK with `d`. */
function privateKeyParts(input: unknown): { key: unknown; kid?: string } | undefined {
  if (input instanceof CryptoKey) return input.type === "private" ? { key: input } : undefined
  if (input === null || typeof input !== "object") return undefined
  const wrapped = input as { key?: unknown; kid?: unknown }
  if (wrapped.key instanceof CryptoKey) {
    return wrapped.key.type === "private"
      ? { key: wrapped.key, ...(typeof wrapped.kid === "string" ? { kid: wrapped.kid } : {}) }
      : undefined
  }
  const jwk = input as { kty?: unknown; d?: unknown; kid?: unknown }
  if (typeof jwk.kty !== "string" || jwk.kty === "oct" || typeof jwk.d !== "string") return undefined
  return { key: jwk, ...(typeof jwk.kid === "string" ? { kid: jwk.kid } : {}) }
}

function resolveRequestObject(provider: SecurityInput, fapi2: boolean): ResolvedRequestObject | undefined {
  const option = provider.requestObject
  if (option === undefined) return undefined
  const id = provider.id
  const refuse = () =>
    new InvalidConfig(`The "${id}" provider's requestObject key is not a usable private signing key`, {
      code: "request_object_key_invalid",
      cause: { provider: id },
    })
  if (option === null || typeof option !== "object") throw invalid(id, "invalid_provider_option", "requestObject")
  const { key, alg: asked, kid, lifetime = 60 } = option
  if (asked !== undefined && (typeof asked !== "string" || asked === "none" || /^HS/i.test(asked))) throw refuse()
  const parts = privateKeyParts(key)
  if (!parts) throw refuse()
  const alg = algorithmOf(parts.key, asked)
  if (!alg) throw refuse()
  const max = fapi2 ? 60 : MAX_REQUEST_OBJECT_LIFETIME
  if (typeof lifetime !== "number" || !Number.isInteger(lifetime) || lifetime < 1 || lifetime > max) {
    throw invalid(id, "invalid_provider_option", "requestObject.lifetime")
  }
  if (kid !== undefined && typeof kid !== "string") throw invalid(id, "invalid_provider_option", "requestObject.kid")
  const resolvedKid = kid ?? parts.kid
  return Object.freeze({ key: key as PrivateKeyInput, alg, lifetime, ...(resolvedKid ? { kid: resolvedKid } : {}) })
}

function resolveDpop(provider: SecurityInput, fapi2: boolean): ResolvedSecurity["dpop"] {
  const option = provider.dpop
  if (option === undefined) return fapi2 ? { alg: "ES256" } : undefined
  if (option === false) return undefined
  if (option === true) return { alg: "ES256" }
  if (option === null || typeof option !== "object" || Array.isArray(option)) {
    throw invalid(provider.id, "invalid_provider_option", "dpop")
  }
  const alg = option.alg ?? "ES256"
  if (!DPOP_ALGORITHMS.has(alg)) {
    throw new InvalidConfig(`The "${provider.id}" provider's DPoP algorithm is not supported`, {
      code: "dpop_alg_unsupported",
      cause: { provider: provider.id, alg },
    })
  }
  return { alg }
}

/** The security preset named by `securityProfile`, or by a string `profile` (a function `profile` is the mapping). */
export function securityProfileOf(provider: SecurityInput): "fapi2" | undefined {
  const fromProfile = typeof provider.profile === "string" ? provider.profile : undefined
  const named = provider.securityProfile
  for (const value of [fromProfile, named]) {
    if (value !== undefined && value !== "fapi2") throw invalid(provider.id, "invalid_provider_option", "profile")
  }
  if (fromProfile !== undefined && named !== undefined && fromProfile !== named) {
    throw invalid(provider.id, "invalid_provider_option", "securityProfile")
  }
  return (fromProfile ?? named) as "fapi2" | undefined
}

/**
 * A provider's user options with a string `profile` moved to `securityProfile`, so that merging them over a catalogue
 * factory keeps the factory's profile mapping (a string would replace the function).
 *
 * @throws InvalidConfig `invalid_provider_option` when a string `profile` and `securityProfile` disagree.
 * @example
 * ```ts
 * liftSecurityProfile({ profile: "fapi2", clientId }) // { clientId, securityProfile: "fapi2" }
 * ```
 */
export function liftSecurityProfile<T>(options: T, id: string): T {
  const record = options as { profile?: unknown; securityProfile?: unknown } | undefined
  if (!record || typeof record !== "object" || typeof record.profile !== "string") return options
  const { profile, ...rest } = record
  if (record.securityProfile !== undefined && record.securityProfile !== profile) {
    throw invalid(id, "invalid_provider_option", "securityProfile")
  }
  return { ...rest, securityProfile: profile } as T
}

function fapi2Refusal(id: string, rule: string, code: Parameters<typeof fapi2Error>[1]): InvalidConfig {
  return fapi2Error(`The "${id}" provider breaks the fapi2 profile: ${rule}`, code, id)
}

function fapi2Error(
  message: string,
  code: "fapi2_client_auth" | "fapi2_par_required" | "fapi2_dpop_required" | "fapi2_alg" | "fapi2_checks",
  provider: string,
): InvalidConfig {
  return new InvalidConfig(message, { code, cause: { provider } })
}

/** What FAPI 2.0 forbids, refused at construction. */
function assertFapi2(provider: SecurityInput, security: ResolvedSecurity): void {
  const id = provider.id
  const tokenConfig = typeof provider.token === "object" ? provider.token : undefined
  const clientKey = tokenConfig && "clientPrivateKey" in tokenConfig ? tokenConfig.clientPrivateKey : undefined
  if (provider.client?.token_endpoint_auth_method !== "private_key_jwt" || clientKey === undefined) {
    throw fapi2Refusal(
      id,
      "client authentication must be private_key_jwt with token.clientPrivateKey",
      "fapi2_client_auth",
    )
  }
  if (provider.par === false) throw fapi2Refusal(id, "par cannot be turned off", "fapi2_par_required")
  if (provider.dpop === false) throw fapi2Refusal(id, "dpop cannot be turned off", "fapi2_dpop_required")
  const keyParts = privateKeyParts(clientKey)
  const clientAlg = keyParts ? algorithmOf(keyParts.key, undefined) : undefined
  const algs = [
    clientAlg,
    security.requestObject?.alg,
    security.dpop?.alg,
    provider.client?.id_token_signed_response_alg,
  ]
  const allowed = (alg: string | undefined) =>
    alg !== undefined && FAPI2_ALGORITHMS.includes(alg === "Ed25519" ? "EdDSA" : alg)
  if (!allowed(clientAlg) || algs.slice(1).some((alg) => alg !== undefined && !allowed(alg))) {
    throw fapi2Refusal(id, "signing algorithms are limited to PS256, ES256 and EdDSA", "fapi2_alg")
  }
  if (provider.allowInsecureUnsignedIdTokens === true) {
    throw fapi2Refusal(id, "unsigned ID tokens are forbidden", "fapi2_alg")
  }
  if (provider.checks?.includes("none")) throw fapi2Refusal(id, "checks cannot be turned off", "fapi2_checks")
  if (provider.redirectProxyUrl) {
    throw new InvalidConfig(`The "${id}" provider breaks the fapi2 profile: no redirect proxy`, {
      code: "fapi2_redirect_proxy",
      cause: { provider: id },
    })
  }
}

/**
 * Checks and resolves `par`, `dpop`, `requestObject` and the `fapi2` preset of a merged provider config.
 *
 * @throws InvalidConfig `invalid_provider_option` for an option of the wrong type, `dpop_alg_unsupported`,
 *   `request_object_key_invalid`, or a `fapi2_*` rule the config breaks.
 * @example
 * ```ts
 * resolveSecurity({ id: "bank", securityProfile: "fapi2", client, token: { clientPrivateKey } }, {}).par // true
 * ```
 */
export function resolveSecurity(
  provider: SecurityInput,
  env: { logger?: Pick<LoggerInstance, "warn"> },
): ResolvedSecurity {
  if (provider.par !== undefined && typeof provider.par !== "boolean") {
    throw invalid(provider.id, "invalid_provider_option", "par")
  }
  // Signed authorization responses (JARM) are not implemented: asking for them must not be silently ignored.
  if (provider.client?.authorization_signed_response_alg !== undefined) {
    throw new InvalidConfig(`The "${provider.id}" provider asks for JARM, which Gatehouse does not support yet`, {
      code: "jarm_unsupported",
      cause: { provider: provider.id },
    })
  }
  const fapi2 = securityProfileOf(provider) === "fapi2"
  const security: ResolvedSecurity = {
    ...(fapi2 ? { par: true } : provider.par !== undefined ? { par: provider.par } : {}),
    dpop: resolveDpop(provider, fapi2),
    requestObject: resolveRequestObject(provider, fapi2),
    fapi2,
  }
  if (fapi2) {
    assertFapi2(provider, security)
    if (provider.allowInsecureRequests === true) env.logger?.warn("fapi2-insecure-requests")
  }
  return Object.freeze(security)
}

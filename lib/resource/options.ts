/** `ResourceServerOptions` of `gatehouse-auth/resource` (tokens.md T4.2), checked once when a verifier is built. */
import { InvalidConfig } from "../errors"
import type { KeyValueStore } from "../storage/kv"
import { MemoryStore } from "../storage/memory/store"

/** Signature algorithms a verifier may allow: asymmetric only (`none` and `HS*` are refused at construction). */
export const ASYMMETRIC_ALGS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
] as const

/** The DPoP algorithms announced in `WWW-Authenticate` (RFC 9449 section 7.1) and RFC 9728 metadata. */
export const DPOP_ALGS = ["ES256", "EdDSA", "RS256", "PS256"] as const

export interface IntrospectionOptions {
  /** Default: the discovered `introspection_endpoint`. */
  endpoint?: string
  clientId: string
  clientSecret: string
  /** Seconds an answer is kept (active: at most until `exp`). Default 60. */
  cacheTtl?: number
  /** An active answer must carry an `aud` with an expected audience. Default true. */
  requireAudience?: boolean
}

export interface ResourceServerOptions {
  /** The exact expected `iss`; also the discovery base. */
  issuer: string
  /** `aud` must contain at least one of these. */
  audience: string | string[]
  /** Allowed `alg`s. Default `["RS256", "PS256", "ES256", "EdDSA"]`. */
  algorithms?: string[]
  /** Every one is required (else 403 `insufficient_scope`). */
  scopes?: string[]
  /** Skips discovery (a Gatehouse issuer: `<base URL>/jwks`). */
  jwksUri?: string
  /** Seconds of leeway for `exp`, `nbf`, `iat` and the DPoP `iat`. Default 5. */
  clockTolerance?: number
  /** Refuse tokens whose `iat` is older than this many seconds. */
  maxTokenAge?: number
  /** Also accept `typ` `JWT` or none, and scopes from `scp` (Entra, Okta). Default false. */
  allowPlainJwt?: boolean
  /** RFC 7662 introspection for tokens that are not JWTs. */
  introspection?: IntrospectionOptions
  /** DPoP-bound tokens: `required` refuses unbound ones; `maxAge` of a proof in seconds (default 300). */
  dpop?: { required?: boolean; maxAge?: number }
  /** Where DPoP `jti`s are remembered: share one across instances. Default: memory, one per options object. */
  store?: KeyValueStore
  /** The `realm` of the challenges. */
  realm?: string
  /** RFC 9728: the metadata URL sent as `resource_metadata=` in 401 challenges. */
  resourceMetadata?: string
  /** The public origin used for DPoP `htu`. Default: the request's origin. */
  baseUrl?: string
  /** Milliseconds for each discovery, JWKS and introspection request. Default 5000. */
  httpTimeout?: number
  /** Plain-http issuers off loopback. Default false. */
  allowInsecureRequests?: boolean
  /** Logs refusals (debug) and outages (error); default silent. */
  logger?: { debug?(message: string): void; error?(error: Error): void }
}

/** The options with defaults applied. */
export interface ResolvedResourceOptions {
  readonly issuer: string
  readonly audiences: readonly string[]
  readonly algorithms: ReadonlySet<string>
  readonly scopes: readonly string[]
  readonly jwksUri?: string
  readonly clockTolerance: number
  readonly maxTokenAge?: number
  readonly allowPlainJwt: boolean
  readonly introspection?: Required<Omit<IntrospectionOptions, "endpoint">> & { endpoint?: string }
  readonly dpop: { readonly required: boolean; readonly maxAge: number }
  readonly store: KeyValueStore
  readonly realm?: string
  readonly resourceMetadata?: string
  readonly baseUrl?: string
  readonly httpTimeout: number
  readonly allowInsecureRequests: boolean
  readonly logger: { debug(message: string): void; error(error: Error): void }
}

const fail = (field: string, why: string): never => {
  throw new InvalidConfig(`resource server option ${field} ${why}`, { cause: { option: field } })
}

const nonNegative = (field: string, value: unknown, fallback: number): number => {
  if (value === undefined) return fallback
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return fail(field, "must be a number ≥ 0")
  return value
}

/** Whether a URL's host is a loopback address (plain http needs no flag there). */
export function isLoopback(url: URL): boolean {
  const host = url.hostname
  return host === "localhost" || host === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(host)
}

function checkUrl(field: string, value: unknown, insecure: boolean): string {
  if (typeof value !== "string" || value === "") return fail(field, "must be a URL")
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return fail(field, "must be an absolute URL")
  }
  if (url.protocol === "https:") return value
  if (url.protocol === "http:" && (insecure || isLoopback(url))) return value
  return fail(field, "must be https (http only on loopback or with allowInsecureRequests)")
}

/**
 * Checks and completes the options; throws `InvalidConfig` naming the bad field.
 *
 * @example
 * ```ts
 * const resolved = resolveResourceOptions({ issuer: "https://op.example", audience: "https://api.example" })
 * ```
 */
export function resolveResourceOptions(options: ResourceServerOptions): ResolvedResourceOptions {
  if (options === null || typeof options !== "object") return fail("options", "must be an object")
  const insecure = options.allowInsecureRequests === true
  const issuer = checkUrl("issuer", options.issuer, insecure)
  const audiences = typeof options.audience === "string" ? [options.audience] : options.audience
  if (!Array.isArray(audiences) || audiences.length === 0 || audiences.some((a) => typeof a !== "string" || a === "")) {
    fail("audience", "must be a non-empty string or array of strings")
  }
  const algorithms = options.algorithms ?? ["RS256", "PS256", "ES256", "EdDSA"]
  if (!Array.isArray(algorithms) || algorithms.length === 0) fail("algorithms", "must be a non-empty array")
  for (const alg of algorithms) {
    if (!(ASYMMETRIC_ALGS as readonly string[]).includes(alg)) {
      fail("algorithms", `holds ${JSON.stringify(alg)}: only asymmetric algorithms (never none or HS*) are allowed`)
    }
  }
  const scopes = options.scopes ?? []
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== "string" || s === "" || /\s/.test(s))) {
    fail("scopes", "must be an array of scope tokens")
  }
  let introspection: ResolvedResourceOptions["introspection"]
  if (options.introspection !== undefined) {
    const i = options.introspection
    if (typeof i?.clientId !== "string" || i.clientId === "") fail("introspection.clientId", "is required")
    if (typeof i.clientSecret !== "string" || i.clientSecret === "") fail("introspection.clientSecret", "is required")
    introspection = {
      clientId: i.clientId,
      clientSecret: i.clientSecret,
      cacheTtl: nonNegative("introspection.cacheTtl", i.cacheTtl, 60),
      requireAudience: i.requireAudience !== false,
      ...(i.endpoint !== undefined ? { endpoint: checkUrl("introspection.endpoint", i.endpoint, insecure) } : {}),
    }
  }
  const logger = options.logger ?? {}
  return Object.freeze({
    issuer,
    audiences: Object.freeze([...audiences]),
    algorithms: new Set(algorithms),
    scopes: Object.freeze([...scopes]),
    ...(options.jwksUri !== undefined ? { jwksUri: checkUrl("jwksUri", options.jwksUri, insecure) } : {}),
    clockTolerance: nonNegative("clockTolerance", options.clockTolerance, 5),
    ...(options.maxTokenAge !== undefined ? { maxTokenAge: nonNegative("maxTokenAge", options.maxTokenAge, 0) } : {}),
    allowPlainJwt: options.allowPlainJwt === true,
    ...(introspection ? { introspection } : {}),
    dpop: Object.freeze({
      required: options.dpop?.required === true,
      maxAge: nonNegative("dpop.maxAge", options.dpop?.maxAge, 300),
    }),
    store: options.store ?? MemoryStore({ production: false, warn: () => undefined }),
    ...(options.realm !== undefined ? { realm: String(options.realm) } : {}),
    ...(options.resourceMetadata !== undefined
      ? { resourceMetadata: checkUrl("resourceMetadata", options.resourceMetadata, insecure) }
      : {}),
    ...(options.baseUrl !== undefined
      ? { baseUrl: checkUrl("baseUrl", options.baseUrl, true).replace(/\/+$/, "") }
      : {}),
    httpTimeout: nonNegative("httpTimeout", options.httpTimeout, 5000),
    allowInsecureRequests: insecure,
    logger: {
      debug: (message: string) => logger.debug?.(message),
      error: (error: Error) => logger.error?.(error),
    },
  })
}

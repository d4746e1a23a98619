/**
 * DPoP (RFC 9449) for the relying party: one key pair per sign-in, its private JWK kept with the tokens it binds, a
 * proof on every token and userinfo request, one retry on a server's `use_dpop_nonce`, and the refusal of a server
 * that answers Bearer tokens.
 */
import { calculateJwkThumbprint, exportJWK, importJWK, SignJWT, type JWK } from "jose"
import * as oauth from "oauth4webapi"
import { OAuthProtocolError } from "../errors"
import type { LoggerInstance } from "../logger"
import type { ResolvedOAuthProvider } from "./types"

/** A sign-in's DPoP key: the pair, the oauth4webapi handle that signs proofs with it, and its thumbprint. */
export interface DPoPKey {
  readonly pair: CryptoKeyPair
  readonly handle: oauth.DPoPHandle
  /** RFC 7638 thumbprint of the public key (public: callbacks may see it). */
  readonly jkt: string
  /** The private JWK, to keep with the tokens (never logged, never in a URL or the session payload). */
  readonly jwk: JWK
}

const subtleAlg = (alg: string) => (alg === "EdDSA" ? "Ed25519" : alg)

/** Origins whose nonces a provider keeps (the oldest is dropped beyond this). */
const MAX_NONCE_ORIGINS = 100
/** The last `DPoP-Nonce` of each server origin, per provider: later sign-ins and refreshes start with it. */
const nonceCaches = new WeakMap<object, Map<string, string>>()

function nonceCacheOf(owner: object): Map<string, string> {
  let cache = nonceCaches.get(owner)
  if (!cache) nonceCaches.set(owner, (cache = new Map()))
  return cache
}

/** Keeps the nonce a server answered with, so the next proof to that origin carries it. */
function rememberNonce(owner: object, response: Response | undefined): string | undefined {
  const nonce = response?.headers.get("dpop-nonce")
  if (!response?.url || !nonce) return undefined
  const cache = nonceCacheOf(owner)
  const origin = new URL(response.url).origin
  cache.delete(origin)
  if (cache.size >= MAX_NONCE_ORIGINS) cache.delete(cache.keys().next().value as string)
  cache.set(origin, nonce)
  return origin
}

async function keyOf(pair: CryptoKeyPair, alg: string, owner?: object): Promise<DPoPKey> {
  const jwk = { ...(await exportJWK(pair.privateKey)), alg }
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = jwk
  const cache = owner ? nonceCacheOf(owner) : undefined
  return Object.freeze({
    pair,
    // A new key's handle knows no nonce yet: it starts with the provider's last one for the origin.
    handle: oauth.DPoP({}, pair, {
      [oauth.modifyAssertion]: (_header, payload) => {
        if (payload.nonce !== undefined || typeof payload.htu !== "string" || !cache) return
        const nonce = cache.get(new URL(payload.htu).origin)
        if (nonce) payload.nonce = nonce
      },
    }),
    jkt: await calculateJwkThumbprint(publicJwk),
    jwk,
  })
}

/**
 * A new key pair for one sign-in, with the provider's algorithm (ES256 by default).
 *
 * @example
 * ```ts
 * const key = await newDPoPKey(provider) // key.jkt names it; key.jwk is what is stored
 * ```
 */
export async function newDPoPKey(provider: Pick<ResolvedOAuthProvider, "security">): Promise<DPoPKey> {
  const alg = provider.security.dpop?.alg ?? "ES256"
  return keyOf(await oauth.generateKeyPair(subtleAlg(alg), { extractable: true }), alg, provider)
}

/**
 * The key of a stored private JWK (the one a sign-in kept), for refreshes and API calls with the same binding.
 *
 * @throws TypeError when `jwk` is not a private asymmetric JWK with an `alg`.
 * @example
 * ```ts
 * const key = await dpopKeyFromJwk(JSON.parse(stored))
 * ```
 */
export async function dpopKeyFromJwk(jwk: JWK, provider?: object): Promise<DPoPKey> {
  if (!jwk || typeof jwk !== "object" || typeof jwk.alg !== "string" || typeof jwk.d !== "string") {
    throw new TypeError("Not a private DPoP key")
  }
  const alg = jwk.alg
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = jwk
  const [privateKey, publicKey] = await Promise.all([
    importJWK(jwk, alg, { extractable: true }),
    importJWK(publicJwk, alg, { extractable: true }),
  ])
  if (!(privateKey instanceof CryptoKey) || !(publicKey instanceof CryptoKey)) throw new TypeError("Not a DPoP key")
  return keyOf({ privateKey, publicKey }, alg, provider)
}

/**
 * Runs a DPoP request (request and processing), once more when the server asked for a nonce: the handle has kept
 * the `DPoP-Nonce` it sent, so the second proof carries it.
 *
 * @throws OAuthProtocolError `dpop_nonce_failed` when the server asks for a nonce again.
 * @example
 * ```ts
 * const result = await withNonceRetry(() => grant())
 * ```
 */
export async function withNonceRetry<T>(
  run: () => Promise<T>,
  provider: Pick<ResolvedOAuthProvider, "id">,
  logger?: Pick<LoggerInstance, "debug">,
): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error
    const origin = rememberNonce(provider, (error as { response?: Response }).response)
    logger?.debug("dpop nonce retry", { provider: provider.id, origin })
  }
  try {
    return await run()
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error
    throw new OAuthProtocolError("The provider kept asking for a DPoP nonce", {
      code: "dpop_nonce_failed",
      cause: { provider: provider.id },
    })
  }
}

/**
 * Refuses a token response that is not DPoP-bound, so a server ignoring DPoP cannot downgrade the tokens to Bearer.
 *
 * @throws OAuthProtocolError `dpop_not_bound`.
 */
export function assertDPoPBound(tokenType: unknown, provider: string): void {
  if (typeof tokenType === "string" && tokenType.toLowerCase() === "dpop") return
  throw new OAuthProtocolError("The provider did not bind its tokens to the DPoP key", {
    code: "dpop_not_bound",
    cause: { provider, tokenType: typeof tokenType === "string" ? tokenType : null },
  })
}

/**
 * A DPoP proof for one request: `typ dpop+jwt`, the public key, `htm`, `htu` without query or fragment, `iat` now, a
 * fresh `jti`, `ath` of the access token when given, and the server's nonce when given.
 *
 * @example
 * ```ts
 * const proof = await dpopProof(key, "GET", "https://api.example/me", { accessToken })
 * ```
 */
export async function dpopProof(
  key: DPoPKey,
  method: string,
  url: string | URL,
  options: { accessToken?: string; nonce?: string } = {},
): Promise<string> {
  const target = new URL(url)
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = key.jwk
  const ath = options.accessToken
    ? Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(options.accessToken))).toString(
        "base64url",
      )
    : undefined
  return new SignJWT({
    htm: method.toUpperCase(),
    htu: `${target.origin}${target.pathname}`,
    jti: crypto.randomUUID(),
    ...(ath ? { ath } : {}),
    ...(options.nonce ? { nonce: options.nonce } : {}),
  })
    .setProtectedHeader({ alg: key.jwk.alg as string, typ: "dpop+jwt", jwk: publicJwk })
    .setIssuedAt()
    .sign(key.pair.privateKey)
}

/** Whether a resource server's answer asks for a DPoP nonce (`WWW-Authenticate: DPoP error="use_dpop_nonce"`). */
export function asksForNonce(response: Response): boolean {
  return (
    response.status === 401 &&
    /^dpop\b/i.test(response.headers.get("www-authenticate") ?? "") &&
    /error="?use_dpop_nonce"?/i.test(response.headers.get("www-authenticate") ?? "")
  )
}

/**
 * A `fetch` that calls a resource server with a DPoP-bound access token: `Authorization: DPoP <token>` and a fresh
 * proof per request, one retry with the nonce a `use_dpop_nonce` answer names, no redirects followed.
 *
 * @example
 * ```ts
 * const api = dpopFetch(key, accessToken, fetch)
 * const response = await api("https://api.bank.example/accounts")
 * ```
 */
export function dpopFetch(key: DPoPKey, accessToken: string, fetchImpl: typeof fetch = fetch): typeof fetch {
  const call = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const request = new Request(input, { ...init, redirect: "manual" })
    const send = async (nonce?: string) => {
      const headers = new Headers(request.headers)
      headers.set("authorization", `DPoP ${accessToken}`)
      headers.set("dpop", await dpopProof(key, request.method, request.url, { accessToken, nonce }))
      return fetchImpl(request.clone(), { headers, redirect: "manual" })
    }
    const first = await send()
    const nonce = first.headers.get("dpop-nonce")
    if (!asksForNonce(first) || !nonce) return first
    await first.body?.cancel()
    return send(nonce)
  }
  return call as typeof fetch
}

/** What `getAccessToken` adds for a DPoP provider: the key's thumbprint and helpers that prove possession of it. */
export interface DPoPAccess {
  /** RFC 7638 thumbprint of the key the access token is bound to. */
  jkt: string
  /** A proof for one request with this access token (`ath` set). */
  proof(method: string, url: string | URL, options?: { nonce?: string }): Promise<string>
  /** `fetch` with `Authorization: DPoP <token>`, a fresh proof per request and one nonce retry; no redirects. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>
}

/**
 * The DPoP helpers of a stored key and the access token bound to it.
 *
 * @example
 * ```ts
 * const { dpop } = { dpop: await dpopAccess(record.dk, record.at) }
 * await dpop.fetch("https://api.bank.example/accounts")
 * ```
 */
export async function dpopAccess(jwk: Record<string, unknown>, accessToken: string): Promise<DPoPAccess> {
  const key = await dpopKeyFromJwk(jwk as JWK)
  const send = dpopFetch(key, accessToken)
  return Object.freeze({
    jkt: key.jkt,
    proof: (method: string, url: string | URL, options: { nonce?: string } = {}) =>
      dpopProof(key, method, url, { accessToken, ...options }),
    fetch: (input: string | URL | Request, init?: RequestInit) => send(input, init),
  })
}

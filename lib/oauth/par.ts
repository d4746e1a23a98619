/**
 * The authorization request as a high-security client sends it: pushed to the server first (PAR, RFC 9126) and/or
 * signed as a request object (JAR, RFC 9101). The browser then carries only `client_id` with `request_uri` or `request`.
 */
import { importJWK, type JWK } from "jose"
import * as oauth from "oauth4webapi"
import { OAuthProtocolError } from "../errors"
import type { LoggerInstance } from "../logger"
import { clientAuthOf, requestOptions } from "./server"
import type { PrivateKeyInput, ResolvedRequestObject } from "./security"
import type { ResolvedOAuthProvider } from "./types"

const importedKeys = new WeakMap<object, Promise<oauth.PrivateKey>>()
const warnedParRequired = new WeakSet<ResolvedOAuthProvider>()

/**
 * A private key option as oauth4webapi signs with it: `{ key, kid }`, a JWK imported once (not extractable).
 *
 * @example
 * ```ts
 * const { key, kid } = await signingKeyOf({ kty: "EC", crv: "P-256", x, y, d }, "ES256")
 * ```
 */
export function signingKeyOf(input: PrivateKeyInput, alg: string, kid?: string): Promise<oauth.PrivateKey> {
  const cached = importedKeys.get(input)
  if (cached) return cached
  const imported = (async (): Promise<oauth.PrivateKey> => {
    if (input instanceof CryptoKey) return { key: input, ...(kid ? { kid } : {}) }
    const wrapped = input as { key?: unknown; kid?: string }
    if (wrapped.key instanceof CryptoKey)
      return { key: wrapped.key, ...((kid ?? wrapped.kid) ? { kid: kid ?? wrapped.kid } : {}) }
    const key = await importJWK(input as JWK, alg === "Ed25519" ? "EdDSA" : alg)
    if (!(key instanceof CryptoKey)) throw new TypeError("The signing key is not asymmetric")
    return { key, ...(kid ? { kid } : {}) }
  })()
  importedKeys.set(input, imported)
  imported.catch(() => importedKeys.delete(input))
  return imported
}

/**
 * Whether this sign-in pushes its authorization request: `par` when set, else the server's
 * `require_pushed_authorization_requests` or the client registration's. `par: false` against a server that requires
 * PAR is honoured and warned about once.
 */
export function pushes(
  provider: ResolvedOAuthProvider,
  as: oauth.AuthorizationServer,
  logger: Pick<LoggerInstance, "warn">,
): boolean {
  const required =
    as.require_pushed_authorization_requests === true || provider.client.require_pushed_authorization_requests === true
  if (provider.security.par === false) {
    if (required && !warnedParRequired.has(provider)) {
      warnedParRequired.add(provider)
      logger.warn("par-required-by-server")
    }
    return false
  }
  return provider.security.par === true || required
}

/**
 * The signed request object of `params` (every authorization parameter), addressed to the issuer, with
 * `nbf = iat`, `exp = iat + lifetime` and a fresh `jti`.
 *
 * @example
 * ```ts
 * const request = await requestObjectOf(provider, as, client, url.searchParams)
 * ```
 */
export async function requestObjectOf(
  requestObject: ResolvedRequestObject,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  params: URLSearchParams,
): Promise<string> {
  const key = await signingKeyOf(requestObject.key, requestObject.alg, requestObject.kid)
  return oauth.issueRequestObject(as, client, params, key, {
    [oauth.modifyAssertion]: (_header, payload) => {
      payload.exp = (payload.iat as number) + requestObject.lifetime
    },
  })
}

/**
 * Pushes the authorization request and answers the URL the browser goes to: the authorization endpoint with exactly
 * `client_id` and `request_uri`. With a request object the pushed body is `request` plus the client authentication.
 *
 * @throws OAuthProtocolError `par_unavailable` when the server has no PAR endpoint; `par_failed` for an error answer
 *   (`cause.reason` the OAuth `error`); `oauth_unavailable` (from the caller's wrapping) for a network failure.
 * @example
 * ```ts
 * const url = await pushAuthorizationRequest(provider, as, client, params, logger)
 * ```
 */
export async function pushAuthorizationRequest(
  provider: ResolvedOAuthProvider,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  params: URLSearchParams,
  logger: Pick<LoggerInstance, "debug">,
): Promise<URL> {
  if (!as.pushed_authorization_request_endpoint || !as.authorization_endpoint) {
    throw new OAuthProtocolError("The provider has no pushed authorization request endpoint", {
      code: "par_unavailable",
      cause: { provider: provider.id },
    })
  }
  const { requestObject } = provider.security
  const body = requestObject
    ? new URLSearchParams({ request: await requestObjectOf(requestObject, as, client, params) })
    : params
  const response = await oauth.pushedAuthorizationRequest(as, client, await clientAuthOf(provider), body, {
    ...requestOptions(provider),
  })
  let result: oauth.PushedAuthorizationResponse
  try {
    result = await oauth.processPushedAuthorizationResponse(as, client, response)
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) {
      throw new OAuthProtocolError("The provider refused the pushed authorization request", {
        code: "par_failed",
        cause: { provider: provider.id, reason: error.error, status: error.status },
      })
    }
    throw error
  }
  logger.debug("pushed authorization request accepted", { provider: provider.id, expires_in: result.expires_in })
  return browserUrl(as.authorization_endpoint, client.client_id, "request_uri", result.request_uri)
}

/** The authorization endpoint with exactly `client_id` and one more parameter (`request_uri` or `request`). */
export function browserUrl(endpoint: string, clientId: string, name: "request_uri" | "request", value: string): URL {
  const url = new URL(endpoint)
  url.search = ""
  url.searchParams.set("client_id", clientId)
  url.searchParams.set(name, value)
  return url
}

/**
 * The refresh-token grant: one token request with the provider's client authentication, the
 * response checked by oauth4webapi, and a returned ID token verified and held to the original issuer and subject
 * (OIDC Core 12.2, RT-01). Failures are classified so the caller knows what to clear.
 */
import * as oauth from "oauth4webapi"
import type { AuthError } from "../errors"
import { engineError } from "./engine-error"
import { decodeJwt, type JWK } from "jose"
import type { TokenSet } from "../models"
import { dpopKeyFromJwk, withNonceRetry, type DPoPKey } from "./dpop"
import { withoutIdToken } from "./callback"
import { entraServer } from "./entra"
import { verifyIdToken } from "./id-token"
import { clientAuthOf, clientOf, requestOptions, resolveServer } from "./server"
import type { ResolvedOAuthProvider } from "./types"

/** Why a refresh grant failed. */
export type RefreshGrantFailure = "invalid_grant" | "transient" | "id_token_mismatch"

/** A failed refresh grant; `reason` decides what the caller clears. Carries no token. */
export class RefreshGrantError extends Error {
  constructor(
    readonly reason: RefreshGrantFailure,
    detail: string,
    readonly status?: number,
    /** A finer code for the caller's `cause.code` (`dpop_not_bound`, `dpop_nonce_failed`). */
    readonly code?: string,
    /** The library's failure, coded by `engineError` (its own code in `cause.code`). */
    engine?: AuthError,
  ) {
    super(`Refresh failed: ${detail}`, engine ? { cause: engine } : undefined)
    this.name = "RefreshGrantError"
  }
}

/** What the caller knows of the sign-in the refresh token belongs to, for the ID token continuity checks. */
export interface RefreshSubject {
  /** The `sub` of the sign-in's ID token, when there was one. */
  sub?: string
  /** The `azp` of that ID token (RT-01: a refreshed token must not add or change it). */
  azp?: string
}

/**
 * The subject (and `azp`) of a stored ID token, read without verifying it (it was verified at sign-in).
 *
 * @example
 * ```ts
 * subjectOfIdToken(account.id_token) // { sub: "alice" }
 * ```
 */
export function subjectOfIdToken(idToken: unknown): RefreshSubject {
  if (typeof idToken !== "string") return {}
  try {
    const { sub, azp } = decodeJwt(idToken)
    return { ...(typeof sub === "string" ? { sub } : {}), ...(typeof azp === "string" ? { azp } : {}) }
  } catch {
    return {}
  }
}

/**
 * Redeems `refreshToken` at the provider's token endpoint (its `customFetch`, `httpTimeout`, no redirects).
 *
 * @throws RefreshGrantError: `invalid_grant` when the provider answers `invalid_grant`/`invalid_token`;
 *   `id_token_mismatch` when a returned ID token fails verification or names another subject; `transient` for a
 *   network failure, a timeout, a 5xx or any other error answer.
 * @example
 * ```ts
 * const tokens = await refreshGrant(provider, account.refresh_token, { sub: "alice" })
 * ```
 */
export async function refreshGrant(
  provider: ResolvedOAuthProvider,
  refreshToken: string,
  subject: RefreshSubject,
  dpopKey?: Record<string, unknown>,
): Promise<TokenSet> {
  let as: oauth.AuthorizationServer
  let dpop: DPoPKey | undefined
  try {
    as = await resolveServer(provider, "callback")
    // The sign-in's own key: the new access token stays bound to the same thumbprint.
    dpop = dpopKey ? await dpopKeyFromJwk(dpopKey as JWK, provider) : undefined
  } catch (error) {
    const engine = engineError(provider, error)
    throw new RefreshGrantError(
      "transient",
      error instanceof Error ? error.name : "request failed",
      undefined,
      undefined,
      engine,
    )
  }
  const attempt = async (): Promise<oauth.TokenEndpointResponse> => {
    let response: Response
    try {
      response = await oauth.refreshTokenGrantRequest(
        as,
        clientOf(provider),
        await clientAuthOf(provider),
        refreshToken,
        {
          ...requestOptions(provider),
          ...(dpop ? { DPoP: dpop.handle } : {}),
        },
      )
    } catch (error) {
      const engine = engineError(provider, error)
      throw new RefreshGrantError(
        "transient",
        error instanceof Error ? error.name : "request failed",
        undefined,
        undefined,
        engine,
      )
    }
    if (provider.token.conform) response = (await provider.token.conform(response)) ?? response
    if (provider.type === "oauth") response = await withoutIdToken(response)
    if (provider.entra) {
      try {
        // A refreshed Entra ID token is held to the tenant it names; the subject check below keeps it the same user.
        as = await entraServer(provider.entra, provider.id, as, response.clone())
      } catch {
        throw new RefreshGrantError("id_token_mismatch", "ID token tenant")
      }
    }
    try {
      return await oauth.processRefreshTokenResponse(as, clientOf(provider), response)
    } catch (error) {
      // Kept as is for one retry with the nonce the DPoP handle has just cached.
      if (dpop && oauth.isDPoPNonceError(error)) throw error
      const engine = engineError(provider, error)
      if (error instanceof oauth.ResponseBodyError) {
        const code = error.error
        if (code === "invalid_grant" || code === "invalid_token") {
          throw new RefreshGrantError("invalid_grant", code, undefined, undefined, engine)
        }
        throw new RefreshGrantError("transient", code, error.status, undefined, engine)
      }
      // oauth4webapi validated a returned ID token (iss, aud, exp, iat): a failure there is a mismatch.
      if (error instanceof oauth.OperationProcessingError && /id_token|"iss"|"aud"|"sub"|"azp"/i.test(error.message)) {
        throw new RefreshGrantError("id_token_mismatch", "ID token claims", undefined, undefined, engine)
      }
      throw new RefreshGrantError("transient", "unexpected response", response.status, undefined, engine)
    }
  }
  let result: oauth.TokenEndpointResponse
  try {
    result = dpop ? await withNonceRetry(attempt, provider) : await attempt()
  } catch (error) {
    if (error instanceof RefreshGrantError) throw error
    throw new RefreshGrantError("transient", "dpop nonce", undefined, "dpop_nonce_failed", engineError(provider, error))
  }
  if (dpop && !(typeof result.token_type === "string" && result.token_type.toLowerCase() === "dpop")) {
    // A refresh may not downgrade the binding to a Bearer token: the stored tokens stay as they were.
    throw new RefreshGrantError("transient", "not DPoP-bound", undefined, "dpop_not_bound")
  }
  if (typeof result.id_token === "string") {
    try {
      await verifyIdToken(provider, as, result.id_token)
    } catch {
      throw new RefreshGrantError("id_token_mismatch", "ID token signature")
    }
    const claims = oauth.getValidatedIdTokenClaims(result)
    const aud = claims ? (Array.isArray(claims.aud) ? claims.aud : [claims.aud]) : []
    if (
      !claims ||
      claims.iss !== as.issuer ||
      !aud.includes(provider.clientId) ||
      // With the sign-in's ID token known: the same subject, and `azp` neither added nor changed (RT-01).
      (subject.sub !== undefined &&
        (claims.sub !== subject.sub || (typeof claims.azp === "string" ? claims.azp : undefined) !== subject.azp))
    ) {
      throw new RefreshGrantError("id_token_mismatch", "ID token subject")
    }
  }
  return { ...result }
}

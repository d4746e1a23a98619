/**
 * Turns what the OAuth engine's libraries throw (oauth4webapi, jose, fetch) into a coded Gatehouse error, keeping the
 * library's own code in `cause.code` so tests and logs compare codes, never the libraries' English.
 */
import * as oauth from "oauth4webapi"
import { AuthError, OAuthProtocolError } from "../errors"
import { SOCKET_UNREACHABLE_CODES } from "../network-errors"
import type { ResolvedOAuthProvider } from "./types"

/** Socket codes of a provider that cannot be reached (undici puts them on `error.cause`). */
const networkCodes = new Set([
  ...SOCKET_UNREACHABLE_CODES,
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
])

function codeOf(value: unknown): string | undefined {
  const code = (value as { code?: unknown } | null)?.code
  return typeof code === "string" ? code : undefined
}

/** The network code of a failed request (`TimeoutError`/`AbortError` for the `httpTimeout` signal), if it is one. */
function networkFailure(error: unknown): string | undefined {
  // Structural, not `instanceof Error`: a DOMException (the timeout signal's) may come from another realm.
  let value = error as { name?: unknown; cause?: unknown } | null | undefined
  for (let depth = 0; value !== null && typeof value === "object" && depth < 4; depth++, value = value.cause as never) {
    if (value.name === "TimeoutError" || value.name === "AbortError") return value.name
    const code = codeOf(value)
    if (code !== undefined && networkCodes.has(code)) return code
  }
  return undefined
}

/**
 * The protocol library's code of an engine failure: an oauth4webapi code (`OAUTH_…`), a jose code (`ERR_J…`, also
 * when wrapped as the `err` of an ID token failure), or `undefined`.
 */
function libraryCode(error: unknown): string | undefined {
  const own = codeOf(error)
  if (own !== undefined) return own
  const cause = (error as { cause?: unknown } | null)?.cause
  return codeOf((cause as { err?: unknown } | undefined)?.err) ?? codeOf(cause)
}

/**
 * Wraps an engine failure for `provider`: an `AuthError` passes unchanged; a network failure or timeout becomes
 * `OAuthProtocolError` with code `oauth_unavailable`; anything else `OAuthProtocolError` with
 * `cause: { code, provider, err }` plus what the library names: `reason` and `status` of an OAuth error answer
 * (`invalid_grant`), the `claim` or metadata `attribute` that failed a comparison.
 *
 * @example
 * ```ts
 * try { await exchange() } catch (error) { throw engineError(provider, error) }
 * ```
 */
export function engineError(provider: Pick<ResolvedOAuthProvider, "id">, error: unknown): AuthError {
  if (error instanceof AuthError) return error
  const err = error instanceof Error ? error : new Error(String(error))
  const network = networkFailure(error)
  if (network !== undefined) {
    return new OAuthProtocolError("The provider could not be reached", {
      code: "oauth_unavailable",
      cause: { code: network, provider: provider.id, err },
    })
  }
  // What oauth4webapi names in its own cause: the claim or metadata attribute that failed a comparison.
  const detail = (err.cause ?? {}) as { claim?: unknown; attribute?: unknown }
  const claim = typeof detail.claim === "string" ? detail.claim : undefined
  const attribute = typeof detail.attribute === "string" ? detail.attribute : undefined
  return new OAuthProtocolError("The provider's answer was rejected", {
    cause: {
      code: libraryCode(error) ?? "unknown",
      ...(error instanceof oauth.ResponseBodyError ? { reason: error.error, status: error.status } : {}),
      ...(claim ? { claim } : {}),
      ...(attribute ? { attribute } : {}),
      provider: provider.id,
      err,
    },
  })
}

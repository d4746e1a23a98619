/** CSRF double-submit: a random token in a hashed cookie, echoed in the form body of every state-changing POST. */
import { constantTimeEqual, keyedHash, randomToken } from "./secrets"

export interface CsrfState {
  token: string
  /** The cookie value to set, when a new token was minted. */
  cookie?: string
  /** True only for a POST whose body `csrfToken` equals the cookie's token. */
  verified: boolean
}

/**
 * Reads or mints the CSRF token. The cookie is `<token>|<sha256(token + secret)>`; it is accepted when the hash matches
 * under any of the secrets (the first one hashes new tokens), so rotating secrets keeps tokens valid.
 *
 * @example
 * ```ts
 * const csrf = resolveCsrf({ secret: ["s"], cookieValue: cookies["authjs.csrf-token"], isPost: true, bodyToken })
 * ```
 */
export function resolveCsrf(params: {
  secret: readonly string[]
  cookieValue?: string
  isPost: boolean
  bodyToken?: unknown
}): CsrfState {
  const { secret, cookieValue, isPost, bodyToken } = params
  if (cookieValue) {
    const sep = cookieValue.indexOf("|")
    const token = cookieValue.slice(0, sep)
    const hash = cookieValue.slice(sep + 1)
    if (sep > 0 && /^[0-9a-f]{64}$/.test(token) && secret.some((s) => constantTimeEqual(hash, keyedHash(token, s)))) {
      const verified = isPost && typeof bodyToken === "string" && constantTimeEqual(bodyToken, token)
      return { token, verified }
    }
  }
  const token = randomToken()
  return { token, cookie: `${token}|${keyedHash(token, secret[0]!)}`, verified: false }
}

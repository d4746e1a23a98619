/** CSRF double-submit: a random token in a hashed cookie, echoed in the form body of every state-changing POST. */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex")
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

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
    if (sep > 0 && /^[0-9a-f]{64}$/.test(token) && secret.some((s) => safeEqual(hash, sha256Hex(`${token}${s}`)))) {
      const verified = isPost && typeof bodyToken === "string" && safeEqual(bodyToken, token)
      return { token, verified }
    }
  }
  const token = randomBytes(32).toString("hex")
  return { token, cookie: `${token}|${sha256Hex(`${token}${secret[0]}`)}`, verified: false }
}

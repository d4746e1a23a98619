/** Post-sign-in redirect targets: only the site's own origin is ever allowed. */

/**
 * The default `redirect` callback. `url` is resolved against `baseUrl` (an origin); the result is returned only when
 * its origin is exactly `baseUrl`'s, else `baseUrl` itself. Never throws: a malformed URL yields `baseUrl`.
 *
 * @example
 * ```ts
 * sameOriginRedirect("/dashboard", "https://app.example") // "https://app.example/dashboard"
 * sameOriginRedirect("//evil.example", "https://app.example") // "https://app.example"
 * ```
 */
export function sameOriginRedirect(url: string, baseUrl: string): string {
  // A pure function of two strings that most requests call with the same pair (the callback-url cookie and the
  // origin): the last answer is kept, saving the four URL parses below.
  const last = lastRedirect
  if (last !== undefined && last.url === url && last.baseUrl === baseUrl) return last.answer
  const answer = resolveSameOrigin(url, baseUrl)
  lastRedirect = { url, baseUrl, answer }
  return answer
}

let lastRedirect: { readonly url: string; readonly baseUrl: string; readonly answer: string } | undefined

function resolveSameOrigin(url: string, baseUrl: string): string {
  let base: URL
  try {
    base = new URL(baseUrl)
  } catch {
    return baseUrl
  }
  try {
    const target = new URL(url, base)
    if (target.origin === base.origin && target.username === "" && target.password === "") {
      // Returned as given only when it means the same thing with and without the base (so "https:evil.example",
      // relative here but absolute to a browser, never passes); otherwise the resolved form.
      return URL.canParse(url) && new URL(url).href === target.href ? url : target.href
    }
  } catch {
    // fall through
  }
  return base.origin
}

/**
 * Whether `value` is a callback URL the config check accepts: a path starting with `/`, or an absolute http(s) URL.
 *
 * @example
 * ```ts
 * isValidCallbackUrl("/x", "https://app.example") // true
 * isValidCallbackUrl("a", "https://app.example") // false
 * ```
 */
export function isValidCallbackUrl(value: string, origin: string): boolean {
  // Kept like the redirect's answer above: every request carrying the callback-url cookie asks this of it.
  const last = lastValidity
  if (last !== undefined && last.value === value && last.origin === origin) return last.valid
  const valid = parsesAsCallbackUrl(value, origin)
  lastValidity = { value, origin, valid }
  return valid
}

let lastValidity: { readonly value: string; readonly origin: string; readonly valid: boolean } | undefined

function parsesAsCallbackUrl(value: string, origin: string): boolean {
  try {
    const url = value.startsWith("/") ? new URL(value, origin) : new URL(value)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

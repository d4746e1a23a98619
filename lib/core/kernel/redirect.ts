/** Post-sign-in redirect targets: only the site's own origin is ever allowed. */

export { sameOriginRedirect } from "./config/callbacks"

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

// The sign-in page's CSP when it carries the passkey script: the page policy plus that one nonce and same-origin fetch.
import { pageHeaders } from "./index"

/**
 * The built-in pages' Content-Security-Policy with `script-src 'nonce-<nonce>'` (only the inline passkey script runs)
 * and `connect-src 'self'` (it fetches the WebAuthn options from this origin).
 *
 * @example
 * ```ts
 * withScriptNonce("q2w3e4") // "default-src 'none'; ...; script-src 'nonce-q2w3e4'; connect-src 'self'"
 * ```
 */
export function withScriptNonce(nonce: string): string {
  return `${pageHeaders["Content-Security-Policy"]}; script-src 'nonce-${nonce}'; connect-src 'self'`
}

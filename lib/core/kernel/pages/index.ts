// The built-in pages (sign in, sign out, verify request, error) as pure functions, and the headers they are sent with.
export { escapeHtml } from "./escape"
export { renderSignInPage, signInErrorMessage } from "./signin"
export type { SignInPageParams } from "./signin"
export { renderSignOutPage } from "./signout"
export { renderConfirmEmailPage } from "./confirm-email"
export { renderVerifyRequestPage } from "./verify-request"
export { renderTwoFactorPage } from "./two-factor"
export type { TwoFactorPageParams } from "./two-factor"
export { renderErrorPage } from "./error"
export type { PageProvider, RenderedPage } from "./types"

/**
 * The response headers of every built-in page.
 *
 * `Content-Type` stays exactly `text/html` (no charset parameter) for wire compatibility with the reference; the
 * documents declare UTF-8 with `<meta charset>` as their first head element, which browsers honour.
 *
 * The Content-Security-Policy, directive by directive:
 * - `default-src 'none'`: the pages run no script and load no font, frame or connection.
 * - `style-src 'unsafe-inline'`: the one inline `<style>` and the provider buttons' `style` attributes (both built
 *   from validated colours only).
 * - `img-src 'self' https: data:`: theme and provider logos; `'self'` so that a relative logo path works on a
 *   plain-http development origin too.
 * - `form-action 'self' https: http:`: `'self'` alone would be enough for the form targets themselves (every form
 *   posts to this origin's signin, callback or signout URL), but Chromium and Firefox also check `form-action`
 *   against every redirect that follows a form submission. The OAuth sign-in form posts to `/signin/<id>`, which
 *   answers 302 to the provider's authorization endpoint on another origin; sign-out and credentials sign-in redirect
 *   to the callback URL, which the `redirect` callback may allow on another origin. Those targets are only known per
 *   provider and per request, so the policy allows any `https:` target, and `http:` for development providers
 *   (`allowInsecureRequests`, e.g. a local OIDC server). Injection is prevented by escaping; this directive is only
 *   defence in depth.
 * - `frame-ancestors 'none'` (with `X-Frame-Options: DENY` for old browsers): no clickjacking of the sign-in forms.
 * - `base-uri 'none'`: an injected `<base>` cannot re-point the relative URLs.
 *
 * @example
 * ```ts
 * const { status, html } = renderSignOutPage({ csrfToken, action: request.url, theme })
 * return new Response(html, { status, headers: pageHeaders })
 * ```
 */
export const pageHeaders: Readonly<Record<string, string>> = Object.freeze({
  "Content-Type": "text/html",
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; " +
    "form-action 'self' https: http:; frame-ancestors 'none'; base-uri 'none'",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
})

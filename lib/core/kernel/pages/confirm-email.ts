// The magic-link confirmation page (ML-5): opening the link only shows this page; its one form signs in.
import type { Theme } from "../types"
import { escapeHtml, safeNavigationUrl } from "./escape"
import { csrfInput, renderDocument } from "./layout"
import type { RenderedPage } from "./types"

/**
 * Renders the confirmation page of an email sign-in link (status 200, title "Confirm sign in"): a button whose form
 * posts `token`, `email`, `callbackUrl` and the CSRF token to `action` (the callback URL, without query). Opening the
 * link changes nothing, so a mail scanner that fetches it does not use it up.
 *
 * @example
 * ```ts
 * renderConfirmEmailPage({ action, csrfToken, token, email: "ada@example.com", callbackUrl, theme: {} })
 * ```
 */
export function renderConfirmEmailPage(p: {
  action: string
  csrfToken: string
  token: string
  email: string
  callbackUrl: string
  theme: Theme
}): RenderedPage {
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`
  const content =
    '<main class="card confirm-email">' +
    "<h1>Sign in</h1>" +
    `<p>Continue as <strong>${escapeHtml(p.email)}</strong>?</p>` +
    `<form action="${escapeHtml(safeNavigationUrl(p.action))}" method="post">` +
    csrfInput(p.csrfToken) +
    hidden("token", p.token) +
    hidden("email", p.email) +
    hidden("callbackUrl", p.callbackUrl) +
    '<button type="submit" class="button" id="submitButton">Sign in</button>' +
    "</form>" +
    "</main>"
  return { status: 200, html: renderDocument({ title: "Confirm sign in", theme: p.theme, content }) }
}

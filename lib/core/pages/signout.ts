// The built-in sign-out confirmation page: one form posting the CSRF token back to the request URL.
import type { Theme } from "../types"
import { escapeHtml, safeNavigationUrl } from "./escape"
import { csrfInput, renderDocument } from "./layout"
import type { RenderedPage } from "./types"

/**
 * Renders the built-in sign-out page (status 200, title "Sign Out"): heading "Signout", a question and a form that
 * posts the hidden `csrfToken` to `action` (the current request URL, query string included).
 *
 * @example
 * ```ts
 * const { html } = renderSignOutPage({ csrfToken, action: "https://app.example/auth/signout", theme: {} })
 * ```
 */
export function renderSignOutPage(p: { csrfToken: string; action: string; theme: Theme }): RenderedPage {
  const content =
    '<main class="card signout">' +
    "<h1>Signout</h1>" +
    "<p>Are you sure you want to sign out?</p>" +
    `<form action="${escapeHtml(safeNavigationUrl(p.action))}" method="post">` +
    csrfInput(p.csrfToken) +
    '<button type="submit" class="button" id="submitButton">Sign out</button>' +
    "</form>" +
    "</main>"
  return { status: 200, html: renderDocument({ title: "Sign Out", theme: p.theme, content }) }
}

// The built-in "check your email" page shown after a magic link was sent.
import type { Theme } from "../types"
import { renderDocument } from "./layout"
import { siteLink } from "./site-link"
import type { RenderedPage } from "./types"

/**
 * Renders the built-in verify-request page (status 200, title "Verify Request") with a link back to `origin`.
 *
 * @example
 * ```ts
 * const { html } = renderVerifyRequestPage({ origin: "https://app.example", theme: {} })
 * ```
 */
export function renderVerifyRequestPage(p: { origin: string; theme: Theme }): RenderedPage {
  const content =
    '<main class="card verify-request">' +
    "<h1>Check your email</h1>" +
    "<p>A sign in link has been sent to your email address.</p>" +
    `<p>${siteLink(p.origin)}</p>` +
    "</main>"
  return { status: 200, html: renderDocument({ title: "Verify Request", theme: p.theme, content }) }
}

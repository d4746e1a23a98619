// The built-in sign-out page: a confirmation form posting the CSRF token back to the request URL, or, for a visitor
// without a session, a note that there is nothing to sign out of.
import type { Theme } from "../types"
import { escapeHtml, safeNavigationUrl } from "./escape"
import { csrfInput, renderDocument } from "./layout"
import { siteLink } from "./site-link"
import type { RenderedPage } from "./types"

export interface SignOutPageParams {
  csrfToken: string
  /** Where the form posts: the current request URL, query string included. */
  action: string
  theme: Theme
  /** Whether the visitor has a session cookie; `false` shows "You are not signed in". Default true. */
  signedIn?: boolean
  /** Where sign-out returns to (a hidden `callbackUrl` field, and the "Cancel" link); left out when undefined. */
  returnTo?: string
  /** The sign-in page, offered to a visitor who is not signed in. */
  signinUrl?: string
  /** The site, for "Back to <site>". */
  origin?: string
}

/**
 * Renders the built-in sign-out page (status 200, title "Sign Out", heading "Sign out"). Signed in: a question and a
 * form posting the hidden `csrfToken` (and `callbackUrl` = `returnTo`) to `action`, with "Cancel" back to `returnTo`.
 * Not signed in: "You are not signed in" with links to sign in and back to the site.
 *
 * @example
 * ```ts
 * const { html } = renderSignOutPage({ csrfToken, action: "https://app.example/auth/signout", theme: {} })
 * ```
 */
export function renderSignOutPage(p: SignOutPageParams): RenderedPage {
  const back = p.origin !== undefined ? `<p class="back">${siteLink(p.origin, "Back to ")}</p>` : ""
  let body: string
  if (p.signedIn === false) {
    body =
      "<p>You are not signed in.</p>" +
      (p.signinUrl !== undefined
        ? `<a class="button" href="${escapeHtml(safeNavigationUrl(p.signinUrl))}">Sign in</a>`
        : "") +
      back
  } else {
    body =
      "<p>Are you sure you want to sign out?</p>" +
      `<form action="${escapeHtml(safeNavigationUrl(p.action))}" method="post">` +
      csrfInput(p.csrfToken) +
      (p.returnTo !== undefined ? `<input type="hidden" name="callbackUrl" value="${escapeHtml(p.returnTo)}">` : "") +
      '<button type="submit" class="button" id="submitButton">Sign out</button>' +
      "</form>" +
      (p.returnTo !== undefined
        ? `<p class="back"><a class="site" href="${escapeHtml(safeNavigationUrl(p.returnTo))}">Cancel</a></p>`
        : back)
  }
  const content = `<main class="card signout"><h1>Sign out</h1>${body}</main>`
  return { status: 200, html: renderDocument({ title: "Sign Out", theme: p.theme, content }) }
}

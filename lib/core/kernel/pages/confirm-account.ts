// The confirmation pages of the account mail links (accounts.md §2.8): opening a link only shows this page; its one
// form (POST to the same path) confirms, cancels or deletes.
import type { Theme } from "../types"
import { escapeHtml, safeNavigationUrl } from "./escape"
import { csrfInput, renderDocument } from "./layout"
import type { RenderedPage } from "./types"

/** The three mail links and what their page says. */
const TEXT = {
  "verify-email": {
    heading: "Confirm your new email address",
    sentence: "Use this address to sign in from now on?",
    button: "Confirm address",
  },
  "cancel-email": {
    heading: "Cancel the email change",
    sentence: "If you did not ask to change your email address, cancel the change.",
    button: "Cancel the change",
  },
  "confirm-delete": {
    heading: "Delete your account",
    sentence: "This deletes your account and everything stored with it. It cannot be undone.",
    button: "Delete my account",
  },
} as const

/** Which mail link a page belongs to. */
export type AccountLinkPage = keyof typeof TEXT

/**
 * Renders the confirmation page of an account mail link (status 200): a heading, one sentence and a form posting
 * `token` and the CSRF token to `action` (the same path).
 *
 * @example
 * ```ts
 * renderConfirmAccountPage({ page: "verify-email", action, csrfToken, token, theme: {} })
 * ```
 */
export function renderConfirmAccountPage(p: {
  page: AccountLinkPage
  action: string
  csrfToken: string
  token: string
  theme: Theme
}): RenderedPage {
  const text = TEXT[p.page]
  const content =
    '<main class="card confirm-account">' +
    `<h1>${escapeHtml(text.heading)}</h1>` +
    `<p>${escapeHtml(text.sentence)}</p>` +
    `<form action="${escapeHtml(safeNavigationUrl(p.action))}" method="post">` +
    csrfInput(p.csrfToken) +
    `<input type="hidden" name="token" value="${escapeHtml(p.token)}">` +
    `<button type="submit" class="button" id="submitButton">${escapeHtml(text.button)}</button>` +
    "</form>" +
    "</main>"
  return { status: 200, html: renderDocument({ title: text.heading, theme: p.theme, content }) }
}

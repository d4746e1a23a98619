// The built-in "check your email" page shown after a magic link was sent.
import type { Theme } from "../types"
import { escapeHtml } from "./escape"
import { csrfInput, renderDocument } from "./layout"
import { siteLink } from "./site-link"
import type { RenderedPage } from "./types"

/**
 * A lifetime in seconds in words: "10 minutes", "1 hour", "24 hours", "2 days".
 *
 * @example
 * ```ts
 * lifetimeInWords(600) // "10 minutes"
 * ```
 */
export function lifetimeInWords(seconds: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`
  if (seconds < 60) return unit(Math.max(1, Math.round(seconds)), "second")
  if (seconds < 3600 || seconds % 3600 !== 0) return unit(Math.round(seconds / 60), "minute")
  if (seconds <= 48 * 3600 || seconds % 86400 !== 0) return unit(seconds / 3600, "hour")
  return unit(seconds / 86400, "day")
}

function codeForm(c: NonNullable<Parameters<typeof renderVerifyRequestPage>[0]["code"]>): string {
  return (
    (c.error === "Verification"
      ? '<p class="error" role="alert">That code didn\'t work or has expired. Check it, or request a new email.</p>'
      : "") +
    `<form method="post" action="${escapeHtml(c.action)}">` +
    csrfInput(c.csrfToken) +
    (c.withAddress
      ? '<label class="field-label" for="email">Email</label><input class="field" id="email" type="email" name="email" autocomplete="email" required>'
      : "") +
    '<label class="field-label" for="code">Code</label>' +
    '<input class="field" id="code" name="code" type="text" autocomplete="one-time-code" inputmode="numeric" pattern="[0-9 ]*" ' +
    `maxlength="${c.length + 1}" required>` +
    '<button type="submit" class="button">Sign in</button>' +
    "</form>"
  )
}

/**
 * Renders the built-in verify-request page (status 200, title "Verify Request"): where to look, how long the link
 * stays valid (when `maxAge`, in seconds, is known) and a link back to `origin`.
 *
 * @example
 * ```ts
 * const { html } = renderVerifyRequestPage({ origin: "https://app.example", theme: {}, maxAge: 600 })
 * ```
 */
export function renderVerifyRequestPage(p: {
  origin: string
  theme: Theme
  maxAge?: number | undefined
  /** The masked address the link went to (`a…@example.com`), when the browser that asked for it is known. */
  address?: string | undefined
  /** The provider mails a code too: the form that posts it (no address field when the browser's address is sealed). */
  code?: { action: string; csrfToken: string; length: number; withAddress: boolean; error?: string | undefined }
  /** The Password provider's texts: after a sign-up, a forgot-password request, or a resend. */
  kind?: "signup" | "reset" | "verify"
}): RenderedPage {
  const lifetime =
    p.maxAge !== undefined && Number.isFinite(p.maxAge) && p.maxAge > 0
      ? `<p>The link is valid for ${escapeHtml(lifetimeInWords(p.maxAge))} and works once.</p>`
      : ""
  const passwordText = {
    signup: "Check your email to finish creating your account.",
    reset: "If an account exists for this address, we sent a link to reset the password.",
    verify: "If this address needs confirming, we sent a new link.",
  }
  const content =
    '<main class="card verify-request">' +
    "<h1>Check your email</h1>" +
    (p.kind
      ? `<p>${escapeHtml(passwordText[p.kind])}</p>` +
        (p.address ? `<p>Address: <strong class="address">${escapeHtml(p.address)}</strong></p>` : "")
      : p.address
        ? `<p>A sign in link has been sent to <strong class="address">${escapeHtml(p.address)}</strong>.</p>`
        : "<p>A sign in link has been sent to your email address.</p>") +
    lifetime +
    (p.code ? codeForm(p.code) : "") +
    `<p class="back">${siteLink(p.origin, "Back to ")}</p>` +
    "</main>"
  return { status: 200, html: renderDocument({ title: "Verify Request", theme: p.theme, content }) }
}

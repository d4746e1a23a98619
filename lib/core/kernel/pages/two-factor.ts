// The built-in second-factor page: the code form, the backup-code form, "trust this device", resend for email codes.
import type { Theme } from "../types"
import { escapeHtml } from "./escape"
import { csrfInput, renderDocument } from "./layout"
import { lifetimeInWords } from "./verify-request"
import type { RenderedPage } from "./types"

/** What the page shows. */
export interface TwoFactorPageParams {
  method: "totp" | "email"
  /** `{base}/two-factor`: where both forms post. */
  action: string
  csrfToken: string
  theme: Theme
  /** Seconds a trusted device stays trusted; `false` hides the checkbox. */
  trustMaxAge: number | false
  /** Method `email`: the masked address. */
  sentTo?: string
  /** The sign-in page (the "Cancel" link). */
  signInUrl: string
  error?: string
  /** Seconds until the next attempt (`RateLimited`) or send (`sent: false`) may go. */
  retry?: number
  /** `true`: a new code is on its way; `false`: the address was over its send limit, no code went out. */
  sent?: boolean
}

function minutesOf(retry: number | undefined): string {
  const minutes = Math.max(1, Math.ceil((retry ?? 60) / 60))
  return `${minutes} minute${minutes === 1 ? "" : "s"}`
}

function message(p: TwoFactorPageParams): string {
  if (p.error === "TwoFactorInvalid") return "That code didn't work. Check it and try again."
  if (p.error === "RateLimited") return `Too many attempts. Try again in ${minutesOf(p.retry)}.`
  return ""
}

function trustBox(p: TwoFactorPageParams): string {
  if (p.trustMaxAge === false) return ""
  return (
    '<label class="trust"><input type="checkbox" name="trustDevice" value="1"> ' +
    `Trust this device for ${escapeHtml(lifetimeInWords(p.trustMaxAge))}</label>`
  )
}

/**
 * Renders the "Two-step verification" page (status 200). No script: both forms post without JavaScript.
 *
 * @example
 * ```ts
 * renderTwoFactorPage({ method: "totp", action: "/auth/two-factor", csrfToken, theme, trustMaxAge: 2592000, signInUrl })
 * ```
 */
export function renderTwoFactorPage(p: TwoFactorPageParams): RenderedPage {
  const action = escapeHtml(p.action)
  const error = message(p)
  const codeInput =
    '<input class="field" id="code" name="code" type="text" autocomplete="one-time-code" inputmode="numeric" pattern="[0-9 ]*" ' +
    'maxlength="7" required autofocus>'
  const address = `<strong class="address">${escapeHtml(p.sentTo ?? "your email address")}</strong>`
  const intro =
    p.method === "totp"
      ? "<p>Enter the 6-digit code from your authenticator app.</p>"
      : p.sent === false
        ? `<p>${escapeHtml("We couldn't send a code to")} ${address}: too many codes were sent to it. ` +
          `Ask for a new one in ${escapeHtml(minutesOf(p.retry))}.</p>`
        : `<p>We sent a code to ${address}.</p>`
  const codeForm =
    `<form method="post" action="${action}">` +
    csrfInput(p.csrfToken) +
    `<label class="field-label" for="code">Code</label>${codeInput}` +
    trustBox(p) +
    '<button type="submit" class="button">Verify</button>' +
    "</form>"
  const backupForm =
    p.method === "totp"
      ? "<details><summary>Use a backup code</summary>" +
        `<form method="post" action="${action}">` +
        csrfInput(p.csrfToken) +
        '<label class="field-label" for="backupCode">Backup code</label>' +
        '<input class="field" id="backupCode" name="backupCode" type="text" autocomplete="off" required>' +
        trustBox(p) +
        '<button type="submit" class="button">Verify</button>' +
        "</form></details>"
      : ""
  const resendForm =
    p.method === "email"
      ? `<form method="post" action="${action}">` +
        csrfInput(p.csrfToken) +
        '<input type="hidden" name="resend" value="1">' +
        '<button type="submit" class="button provider-button">Send a new code</button>' +
        "</form>"
      : ""
  const content =
    '<main class="card two-factor">' +
    "<h1>Two-step verification</h1>" +
    (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "") +
    (p.sent === true ? '<p class="notice">A new code is on its way.</p>' : "") +
    intro +
    codeForm +
    backupForm +
    resendForm +
    `<p class="back"><a href="${escapeHtml(p.signInUrl)}">Cancel</a></p>` +
    "</main>"
  return { status: 200, html: renderDocument({ title: "Two-step verification", theme: p.theme, content }) }
}

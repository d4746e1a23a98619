// The Password provider's pages: sign-up, forgot password, reset password, and the email confirmation. Plain HTML
// forms that work without JavaScript, each with the CSRF token in a hidden input.
import type { Theme } from "../types"
import { escapeHtml, safeNavigationUrl } from "./escape"
import { csrfInput, renderDocument } from "./layout"
import type { RenderedPage } from "./types"

/** What every Password page needs. */
export interface PasswordPageBase {
  /** `<origin><base>`: the forms post to its routes. */
  base: string
  csrfToken: string
  theme: Theme
  error?: string
  code?: string
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`

/** The message of an error (and code) on a Password page; `""` for none. */
export function passwordErrorMessage(error: string | undefined, code: string | undefined, minLength = 8): string {
  if (!error) return ""
  if (error === "PasswordPolicy") {
    const byCode: Record<string, string> = {
      missing: "Enter a password.",
      too_short: `Use at least ${minLength} characters.`,
      too_long: "This password is too long.",
      blocklisted: "Choose a password that is not your email address.",
      breached: "This password appeared in a data breach. Choose another one.",
      breach_check_failed: "The password could not be checked right now. Try again in a moment.",
    }
    return byCode[code ?? ""] ?? "Choose another password."
  }
  const messages: Record<string, string> = {
    InvalidEmail: "Enter a valid email address.",
    RateLimited: "Too many attempts. Try again in a few minutes.",
    Verification: "This link is invalid or has expired. Request a new one.",
    MissingCSRF: "The form expired. Try again.",
    InvalidRequest: "The form could not be read. Try again.",
  }
  return messages[error] ?? "Something went wrong. Try again."
}

function page(title: string, p: PasswordPageBase, minLength: number, body: string): RenderedPage {
  const message = passwordErrorMessage(p.error, p.code, minLength)
  const content =
    `<main class="card password-page"><h1>${escapeHtml(title)}</h1>` +
    (message ? `<div class="error"><p>${escapeHtml(message)}</p></div>` : "") +
    body +
    "</main>"
  return { status: 200, html: renderDocument({ title, theme: p.theme, content }) }
}

const form = (action: string, inner: string) =>
  `<form action="${escapeHtml(safeNavigationUrl(action))}" method="post">${inner}</form>`

const label = (id: string, text: string) => `<label class="section-header" for="${id}">${escapeHtml(text)}</label>`

/**
 * The sign-up page: name (optional), email and password (`autocomplete="new-password"`, length hints from the config).
 *
 * @example
 * ```ts
 * renderSignUpPage({ base, csrfToken, theme: {}, callbackUrl, minLength: 8, maxLength: 128 })
 * ```
 */
export function renderSignUpPage(
  p: PasswordPageBase & { callbackUrl: string; minLength: number; maxLength: number; email?: string; name?: string },
): RenderedPage {
  const signIn = `${p.base}/signin?${new URLSearchParams({ callbackUrl: p.callbackUrl })}`
  return page(
    "Create an account",
    p,
    p.minLength,
    form(
      `${p.base}/signup`,
      csrfInput(p.csrfToken) +
        hidden("callbackUrl", p.callbackUrl) +
        label("input-name", "Name") +
        `<input id="input-name" name="name" type="text" autocomplete="name" value="${escapeHtml(p.name ?? "")}">` +
        label("input-email", "Email") +
        `<input id="input-email" name="email" type="email" autocomplete="email" required value="${escapeHtml(p.email ?? "")}">` +
        label("input-password", "Password") +
        `<input id="input-password" name="password" type="password" autocomplete="new-password" required ` +
        `minlength="${p.minLength}" maxlength="${p.maxLength}" aria-describedby="password-hint">` +
        `<p id="password-hint" class="hint">At least ${p.minLength} characters</p>` +
        '<button type="submit" class="button">Create account</button>',
    ) + `<p><a href="${escapeHtml(safeNavigationUrl(signIn))}">Already have an account? Sign in</a></p>`,
  )
}

/**
 * The forgot-password page: one email field.
 *
 * @example
 * ```ts
 * renderForgotPasswordPage({ base, csrfToken, theme: {} })
 * ```
 */
export function renderForgotPasswordPage(p: PasswordPageBase): RenderedPage {
  return page(
    "Forgot your password?",
    p,
    8,
    form(
      `${p.base}/forgot-password`,
      csrfInput(p.csrfToken) +
        label("input-email", "Email") +
        '<input id="input-email" name="email" type="email" autocomplete="email" required>' +
        '<button type="submit" class="button">Send a reset link</button>',
    ),
  )
}

/**
 * The reset page of a mailed link: the token and address hidden, a new password, and a hidden `username` field so
 * password managers save the right entry.
 *
 * @example
 * ```ts
 * renderResetPasswordPage({ base, csrfToken, theme: {}, token, email, minLength: 8, maxLength: 128 })
 * ```
 */
export function renderResetPasswordPage(
  p: PasswordPageBase & { token: string; email: string; minLength: number; maxLength: number },
): RenderedPage {
  return page(
    "Choose a new password",
    p,
    p.minLength,
    form(
      `${p.base}/reset-password`,
      csrfInput(p.csrfToken) +
        hidden("token", p.token) +
        hidden("email", p.email) +
        `<input type="text" name="username" autocomplete="username" value="${escapeHtml(p.email)}" hidden>` +
        label("input-password", "New password") +
        `<input id="input-password" name="password" type="password" autocomplete="new-password" required ` +
        `minlength="${p.minLength}" maxlength="${p.maxLength}">` +
        '<button type="submit" class="button">Change password</button>',
    ),
  )
}

/**
 * The confirmation page of a verification link: "Confirm <masked address>?" and one form posting the token.
 *
 * @example
 * ```ts
 * renderVerifyEmailPage({ base, csrfToken, theme: {}, token, email, masked: "a…@example.com", callbackUrl })
 * ```
 */
export function renderVerifyEmailPage(
  p: PasswordPageBase & { token: string; email: string; masked: string; callbackUrl: string },
): RenderedPage {
  return page(
    "Confirm your email address",
    p,
    8,
    `<p>Confirm <strong>${escapeHtml(p.masked)}</strong>?</p>` +
      form(
        `${p.base}/verify-email`,
        csrfInput(p.csrfToken) +
          hidden("token", p.token) +
          hidden("email", p.email) +
          hidden("callbackUrl", p.callbackUrl) +
          '<button type="submit" class="button">Confirm</button>',
      ),
  )
}

/**
 * The sign-in page's password form: `email` and `password` (`autocomplete="current-password"`) posted to
 * `callback/password`, links to the forgot and sign-up pages (keeping `callbackUrl`), and after `EmailNotVerified` a
 * form that sends the confirmation link again.
 *
 * @example
 * ```ts
 * passwordSignInForm(provider, { csrfToken, callbackUrl, error: "EmailNotVerified", email })
 * ```
 */
export function passwordSignInForm(
  provider: { callbackUrl: string; values?: Record<string, string> },
  p: { csrfToken: string; callbackUrl?: string; email?: string; error?: string },
): string {
  const base = provider.callbackUrl.replace(/\/callback\/[^/]*$/, "")
  const keep = p.callbackUrl ? `?${new URLSearchParams({ callbackUrl: p.callbackUrl })}` : ""
  const typed = provider.values?.email ?? p.email
  const email = typed ? ` value="${escapeHtml(typed)}"` : ""
  const resend =
    p.error === "EmailNotVerified"
      ? form(
          `${base}/resend-verification`,
          csrfInput(p.csrfToken) +
            `<input type="hidden" name="email"${email}>` +
            '<button type="submit" class="button">Send the link again</button>',
        )
      : ""
  return (
    form(
      provider.callbackUrl,
      csrfInput(p.csrfToken) +
        (p.callbackUrl !== undefined ? hidden("callbackUrl", p.callbackUrl) : "") +
        '<label class="field-label" for="input-email-for-password-provider">Email</label>' +
        `<input class="field" type="email" name="email" id="input-email-for-password-provider" autocomplete="username" required${email}>` +
        '<label class="field-label" for="input-password-for-password-provider">Password</label>' +
        '<input class="field" type="password" name="password" id="input-password-for-password-provider" ' +
        'autocomplete="current-password" required>' +
        '<button type="submit" class="button">Sign in</button>',
    ) +
    `<p class="password-links"><a href="${escapeHtml(safeNavigationUrl(`${base}/forgot-password${keep}`))}">Forgot password?</a> · ` +
    `<a href="${escapeHtml(safeNavigationUrl(`${base}/signup${keep}`))}">Create an account</a></p>` +
    resend
  )
}

/** The sign-in page's notice after a reset (`reset=1`) or a confirmed address (`verified=1`). */
export function noticeBox(notice: "reset" | "verified" | undefined): string {
  if (notice === "reset")
    return '<div class="notice" role="status"><p>Your password was changed. Sign in with the new one.</p></div>'
  if (notice === "verified") return '<div class="notice" role="status"><p>Your email address is confirmed.</p></div>'
  return ""
}

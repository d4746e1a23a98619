// The built-in sign-in page: an error box, one button per OAuth/OIDC provider and one form per email or credentials
// provider.
import type { Theme } from "../types"
import { credentialAttributes } from "./attributes"
import { buttonColors, buttonStyle, providerMark } from "./provider-button"
import { escapeHtml, safeImageUrl, safeNavigationUrl } from "./escape"
import { csrfInput, renderDocument } from "./layout"
import type { PageProvider, RenderedPage } from "./types"
import { WEBAUTHN_PAGE_SCRIPT } from "./webauthn-script"
import { noticeBox, passwordSignInForm } from "./password"

const tryAnotherAccount = "Try signing in with a different account."

// Messages by `error` query value (wire-compatible with the reference); anything else gets the default.
const signInErrorMessages: Readonly<Record<string, string>> = {
  OAuthCallbackError: tryAnotherAccount,
  Signin: tryAnotherAccount,
  OAuthSignin: tryAnotherAccount,
  OAuthCreateAccount: tryAnotherAccount,
  EmailCreateAccount: tryAnotherAccount,
  Callback: tryAnotherAccount,
  OAuthAccountNotLinked: "To confirm your identity, sign in with the same account you used originally.",
  EmailSignin: "The e-mail could not be sent.",
  EmailSignInError: "The sign-in email could not be sent. Check the address and try again.",
  CredentialsSignin: "Sign in failed. Check the details you provided are correct.",
  SessionRequired: "Please sign in to access this page.",
  MissingCSRF: "The sign in form expired or could not be verified. Please try again.",
  RefreshTokenError: "Your sign-in with the provider has expired. Please sign in again.",
  EmailNotVerified: "Confirm your email address first.",
  Verification: "This link is invalid or has expired.",
}

const defaultSignInErrorMessage = "Unable to sign in."

/**
 * The message the sign-in page shows for an `error` query value. Only fixed strings are returned: the request value
 * itself is never shown.
 *
 * @example
 * ```ts
 * signInErrorMessage("CredentialsSignin") // "Sign in failed. Check the details you provided are correct."
 * signInErrorMessage("whatever") // "Unable to sign in."
 * ```
 */
export function signInErrorMessage(error: string, retry?: string): string {
  if (error === "RateLimited") return rateLimitedMessage(retry)
  return Object.hasOwn(signInErrorMessages, error) ? (signInErrorMessages[error] as string) : defaultSignInErrorMessage
}

/**
 * "Too many attempts. Try again in N minutes.", N from the `retry` query value in seconds, rounded up to whole
 * minutes (at least 1; at most a day, so a forged value cannot print nonsense). Without a usable value: "later".
 */
function rateLimitedMessage(retry: string | undefined): string {
  const seconds = retry !== undefined && /^\d{1,6}$/.test(retry) ? Number(retry) : Number.NaN
  if (!Number.isFinite(seconds) || seconds < 1) return "Too many attempts. Try again later."
  const minutes = Math.min(24 * 60, Math.ceil(seconds / 60))
  return `Too many attempts. Try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}.`
}

const isButtonProvider = (provider: PageProvider): boolean => provider.type === "oauth" || provider.type === "oidc"

// Which providers the page can show: OAuth/OIDC and email always, credentials when they declare inputs, WebAuthn when
// the page carries a script nonce (its ceremony needs the inline script).
function isRenderable(provider: PageProvider, nonce: string | undefined): boolean {
  if (isButtonProvider(provider) || provider.type === "email" || provider.type === "password") return true
  if (provider.type === "webauthn") return nonce !== undefined && provider.webauthnOptionsUrl !== undefined
  return provider.type === "credentials" && provider.credentials !== undefined
}

function formStart(action: string, csrfToken: string): string {
  return `<form action="${escapeHtml(safeNavigationUrl(action))}" method="post">${csrfInput(csrfToken)}`
}

function submitButton(provider: PageProvider): string {
  return `<button type="submit" class="button">Sign in with ${escapeHtml(provider.name)}</button>`
}

function oauthButton(provider: PageProvider, csrfToken: string, callbackUrl: string | undefined): string {
  const custom = buttonStyle(buttonColors(provider.style))
  const style = custom ? ` style="${escapeHtml(custom)}"` : ""
  const logo = safeImageUrl(provider.style?.logo)
  return (
    formStart(provider.signinUrl, csrfToken) +
    (callbackUrl !== undefined ? `<input type="hidden" name="callbackUrl" value="${escapeHtml(callbackUrl)}">` : "") +
    `<button type="submit" class="button provider-button"${style}>` +
    (logo
      ? `<img class="provider-logo" src="${escapeHtml(logo)}" alt="" loading="lazy">`
      : providerMark(provider.name, provider.id)) +
    `<span>Sign in with ${escapeHtml(provider.name)}</span>` +
    "</button></form>"
  )
}

function emailForm(provider: PageProvider, csrfToken: string, email: string | undefined): string {
  const id = `input-email-for-${provider.id}-provider`
  return (
    formStart(provider.signinUrl, csrfToken) +
    `<label class="field-label" for="${escapeHtml(id)}">Email</label>` +
    `<input class="field" type="email" name="email" id="${escapeHtml(id)}" required placeholder="email@example.com"` +
    (email ? ` value="${escapeHtml(email)}"` : "") +
    ">" +
    submitButton(provider) +
    "</form>"
  )
}

function credentialsForm(provider: PageProvider, csrfToken: string): string {
  let fields = ""
  for (const [key, input] of Object.entries(provider.credentials ?? {})) {
    const id = `input-${key}-for-${provider.id}-provider`
    const label = typeof input.label === "string" && input.label !== "" ? input.label : key
    const type = typeof input.type === "string" && input.type !== "" ? input.type : "text"
    const refill = type.toLowerCase() !== "password" ? provider.values?.[key] : undefined
    fields +=
      `<label class="field-label" for="${escapeHtml(id)}">${escapeHtml(label)}</label>` +
      `<input class="field" name="${escapeHtml(key)}" id="${escapeHtml(id)}" type="${escapeHtml(type)}"` +
      (refill !== undefined ? ` value="${escapeHtml(refill)}"` : "") +
      // Every field is required unless the provider says `required: false`: an empty form never round-trips.
      `${credentialAttributes(input)}${"required" in input ? "" : " required"}>`
  }
  return formStart(provider.callbackUrl, csrfToken) + fields + submitButton(provider) + "</form>"
}

function webAuthnForm(provider: PageProvider, p: SignInPageParams): string {
  let fields = ""
  for (const [key, input] of Object.entries(provider.formFields ?? {})) {
    const id = `input-${key}-for-${provider.id}-provider`
    const label = typeof input.label === "string" && input.label !== "" ? input.label : key
    const type = typeof input.type === "string" && input.type !== "" ? input.type : key === "email" ? "email" : "text"
    const value = key === "email" && p.email ? ` value="${escapeHtml(p.email)}"` : ""
    fields +=
      `<label class="field-label" for="${escapeHtml(id)}">${escapeHtml(label)}</label>` +
      `<input class="field" name="${escapeHtml(key)}" id="${escapeHtml(id)}" type="${escapeHtml(type)}" data-form-field` +
      `${credentialAttributes({ ...input, required: undefined })}${value}>`
  }
  return (
    `<form action="${escapeHtml(safeNavigationUrl(provider.callbackUrl))}" method="post"` +
    ` data-webauthn-options="${escapeHtml(safeNavigationUrl(provider.webauthnOptionsUrl as string))}"` +
    ` data-conditional="${provider.enableConditionalUI ? "true" : "false"}">` +
    csrfInput(p.csrfToken) +
    (p.callbackUrl !== undefined
      ? `<input type="hidden" name="callbackUrl" value="${escapeHtml(p.callbackUrl)}">`
      : "") +
    '<input type="hidden" name="action" value=""><input type="hidden" name="data" value="">' +
    fields +
    submitButton(provider) +
    "</form>"
  )
}

function providerBlock(provider: PageProvider, p: SignInPageParams): string {
  let inner: string
  if (isButtonProvider(provider)) inner = oauthButton(provider, p.csrfToken, p.callbackUrl)
  else if (provider.type === "email") inner = emailForm(provider, p.csrfToken, p.email)
  else if (provider.type === "webauthn") inner = webAuthnForm(provider, p)
  else if (provider.type === "password") inner = passwordSignInForm(provider, p)
  else inner = credentialsForm(provider, p.csrfToken)
  return `<div class="provider">${inner}</div>`
}

/** What the sign-in page is rendered from; every string may come from the request and is escaped. */
export interface SignInPageParams {
  providers: PageProvider[]
  csrfToken: string
  /** Sent with OAuth sign-ins as a hidden `callbackUrl` field. */
  callbackUrl?: string
  /** Prefills the email inputs. */
  email?: string
  /** The site the card names in its heading, "Sign in to {siteName}" (the app's host); none, no heading. */
  siteName?: string
  /** The `error` query value; selects a fixed message. */
  error?: string
  /** The `retry` query value (seconds) that comes with `error=RateLimited`. */
  retry?: string
  theme: Theme
  /** The response's CSP script nonce; WebAuthn forms (and their inline script) are rendered only with one. */
  nonce?: string
  /** Password provider: `reset=1` (the password was changed) or `verified=1` (the address is confirmed). */
  notice?: "reset" | "verified"
}

/**
 * Renders the built-in sign-in page (status 200, title "Sign In").
 *
 * OAuth/OIDC providers get a button posting to their `signinUrl` (hidden `csrfToken`, and `callbackUrl` when given);
 * email providers a form posting `email` to their `signinUrl`; credentials providers a form posting one input per
 * credential to their `callbackUrl`. A `<hr>` separates buttons from forms and forms from each other.
 *
 * @example
 * ```ts
 * const { status, html } = renderSignInPage({
 *   providers: [{ id: "github", name: "GitHub", type: "oauth",
 *     signinUrl: "https://app.example/auth/signin/github", callbackUrl: "https://app.example/auth/callback/github" }],
 *   csrfToken,
 *   callbackUrl: "https://app.example/dashboard",
 *   theme: { colorScheme: "auto" },
 * })
 * ```
 */
export function renderSignInPage(p: SignInPageParams): RenderedPage {
  const providers = p.providers.filter((provider) => isRenderable(provider, p.nonce))
  let blocks = ""
  providers.forEach((provider, index) => {
    const previous = providers[index - 1]
    // Consecutive buttons form one group; every form is set apart from its neighbours.
    if (previous && !(isButtonProvider(previous) && isButtonProvider(provider))) blocks += "<hr>"
    blocks += providerBlock(provider, p)
  })
  const errorBox =
    p.error !== undefined && p.error !== ""
      ? `<div class="error" role="alert"><p>${escapeHtml(signInErrorMessage(p.error, p.retry))}</p></div>`
      : ""
  const script = providers.some((provider) => provider.type === "webauthn")
    ? `<script nonce="${escapeHtml(p.nonce as string)}">${WEBAUTHN_PAGE_SCRIPT}</script>`
    : ""
  const heading = p.siteName ? `<h1>Sign in to ${escapeHtml(p.siteName)}</h1>` : ""
  const content = `<main class="card signin">${heading}${noticeBox(p.notice)}${errorBox}${blocks}</main>${script}`
  return { status: 200, html: renderDocument({ title: "Sign In", theme: p.theme, content }) }
}

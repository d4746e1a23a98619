// The built-in sign-in page: an error box, one button per OAuth/OIDC provider and one form per email or credentials
// provider.
import type { Theme } from "../types"
import { credentialAttributes } from "./attributes"
import { contrastingText, cssColor } from "./colors"
import { escapeHtml, safeImageUrl, safeNavigationUrl } from "./escape"
import { csrfInput, renderDocument } from "./layout"
import type { PageProvider, RenderedPage } from "./types"

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
export function signInErrorMessage(error: string): string {
  return Object.hasOwn(signInErrorMessages, error) ? (signInErrorMessages[error] as string) : defaultSignInErrorMessage
}

const isButtonProvider = (provider: PageProvider): boolean => provider.type === "oauth" || provider.type === "oidc"

// Which providers the page can show: OAuth/OIDC and email always, credentials when they declare inputs. WebAuthn needs
// a browser script, which the page's CSP does not allow; it is left out until that lands.
function isRenderable(provider: PageProvider): boolean {
  if (isButtonProvider(provider) || provider.type === "email") return true
  return provider.type === "credentials" && provider.credentials !== undefined
}

function formStart(action: string, csrfToken: string): string {
  return `<form action="${escapeHtml(safeNavigationUrl(action))}" method="post">${csrfInput(csrfToken)}`
}

function submitButton(provider: PageProvider): string {
  return `<button type="submit" class="button">Sign in with ${escapeHtml(provider.name)}</button>`
}

function oauthButton(provider: PageProvider, csrfToken: string, callbackUrl: string | undefined): string {
  const background = cssColor(provider.style?.brandColor ?? provider.style?.bg)
  // A background without a text colour gets black or white text, never the page's own (possibly similar) colour.
  const text = cssColor(provider.style?.text) ?? (background && contrastingText(background))
  const custom = [background && `--provider-bg:${background}`, text && `--provider-fg:${text}`].filter(Boolean)
  const style = custom.length > 0 ? ` style="${escapeHtml(custom.join(";"))}"` : ""
  const logo = safeImageUrl(provider.style?.logo)
  return (
    formStart(provider.signinUrl, csrfToken) +
    (callbackUrl !== undefined ? `<input type="hidden" name="callbackUrl" value="${escapeHtml(callbackUrl)}">` : "") +
    `<button type="submit" class="button provider-button"${style}>` +
    (logo ? `<img class="provider-logo" src="${escapeHtml(logo)}" alt="" loading="lazy">` : "") +
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
    fields +=
      `<label class="field-label" for="${escapeHtml(id)}">${escapeHtml(label)}</label>` +
      `<input class="field" name="${escapeHtml(key)}" id="${escapeHtml(id)}" type="${escapeHtml(type)}"` +
      `${credentialAttributes(input)}>`
  }
  return formStart(provider.callbackUrl, csrfToken) + fields + submitButton(provider) + "</form>"
}

function providerBlock(provider: PageProvider, p: SignInPageParams): string {
  let inner: string
  if (isButtonProvider(provider)) inner = oauthButton(provider, p.csrfToken, p.callbackUrl)
  else if (provider.type === "email") inner = emailForm(provider, p.csrfToken, p.email)
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
  /** The `error` query value; selects a fixed message. */
  error?: string
  theme: Theme
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
  const providers = p.providers.filter(isRenderable)
  let blocks = ""
  providers.forEach((provider, index) => {
    const previous = providers[index - 1]
    // Consecutive buttons form one group; every form is set apart from its neighbours.
    if (previous && !(isButtonProvider(previous) && isButtonProvider(provider))) blocks += "<hr>"
    blocks += providerBlock(provider, p)
  })
  const errorBox =
    p.error !== undefined && p.error !== ""
      ? `<div class="error" role="alert"><p>${escapeHtml(signInErrorMessage(p.error))}</p></div>`
      : ""
  const content = `<main class="card signin">${errorBox}${blocks}</main>`
  return { status: 200, html: renderDocument({ title: "Sign In", theme: p.theme, content }) }
}

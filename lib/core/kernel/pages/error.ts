// The built-in error page: a fixed message and status per error code, never the code's raw text.
import type { Theme } from "../types"
import { escapeHtml, safeNavigationUrl } from "./escape"
import { renderDocument } from "./layout"
import { siteLink } from "./site-link"
import type { RenderedPage } from "./types"

interface ErrorView {
  status: number
  heading: string
  paragraphs: string[]
  /** Offer "Try again" (the sign-in page) before "Back to <site>", which every page has. */
  retry: boolean
}

const errorViews: Readonly<Record<string, ErrorView>> = {
  Configuration: {
    status: 500,
    heading: "Server error",
    paragraphs: ["There is a problem with the server configuration.", "Check the server logs for more information."],
    retry: false,
  },
  AccessDenied: {
    status: 403,
    heading: "Access Denied",
    paragraphs: ["You do not have permission to sign in."],
    retry: true,
  },
  // Not an error code of the reference: the answer to a browser that opened an address under the base path that is no
  // route (`/auth/foo`), where scripts get `400 "Bad request."`.
  UnknownRoute: {
    status: 400,
    heading: "Page not found",
    paragraphs: ["There is no sign-in page at this address.", "Sign in from the sign-in page, or go back to the site."],
    retry: true,
  },
  // An email sign-in link opened again after it signed someone in: said plainly, before any button.
  EmailLinkUsed: {
    status: 403,
    heading: "This link was already used",
    paragraphs: [
      "Each sign-in link works once, and this one has been used.",
      "Ask for a new link on the sign-in page.",
    ],
    retry: true,
  },
  Verification: {
    status: 403,
    heading: "Unable to sign in",
    paragraphs: ["The sign in link is no longer valid.", "It may have been used already or it may have expired."],
    retry: true,
  },
  // tokens.md T2: a native-app sign-in request that cannot go on; the app must start again.
  NativeSignInError: {
    status: 400,
    heading: "Unable to sign in",
    paragraphs: ["This sign-in request from an app is not valid. Start again from the app."],
    retry: false,
  },
}

// Any other code (or none): the status of the reference (200), with an explanation and both ways back.
const defaultErrorView: ErrorView = {
  status: 200,
  heading: "Error",
  paragraphs: ["Something went wrong and you could not be signed in.", "Try again, or go back to the site."],
  retry: true,
}

/**
 * Renders the built-in error page (title "Error"). Status: `Configuration` 500, `AccessDenied` and `Verification`
 * 403, `EmailLinkUsed` 403, `UnknownRoute` 400, anything else (or nothing) 200. Every page explains what happened and links back to `origin`; all but
 * `Configuration` also offer "Try again" (`signinUrl`). The code itself is never shown.
 *
 * @example
 * ```ts
 * const { status, html } = renderErrorPage({
 *   error: "AccessDenied",
 *   origin: "https://app.example",
 *   signinUrl: "https://app.example/auth/signin",
 *   theme: {},
 * }) // status 403
 * ```
 */
export function renderErrorPage(p: { error?: string; origin: string; signinUrl: string; theme: Theme }): RenderedPage {
  const view = p.error !== undefined && Object.hasOwn(errorViews, p.error) ? errorViews[p.error] : undefined
  const { status, heading, paragraphs, retry } = view ?? defaultErrorView
  const content =
    '<main class="card error-page">' +
    `<h1>${escapeHtml(heading)}</h1>` +
    paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join("") +
    (retry ? `<a class="button" href="${escapeHtml(safeNavigationUrl(p.signinUrl))}">Try again</a>` : "") +
    `<p class="back">${siteLink(p.origin, "Back to ")}</p>` +
    "</main>"
  return { status, html: renderDocument({ title: "Error", theme: p.theme, content }) }
}

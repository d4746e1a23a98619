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
  /** A "Sign in" button (to try again), a link back to the site, or nothing. */
  link: "signin" | "site" | "none"
}

const errorViews: Readonly<Record<string, ErrorView>> = {
  Configuration: {
    status: 500,
    heading: "Server error",
    paragraphs: ["There is a problem with the server configuration.", "Check the server logs for more information."],
    link: "none",
  },
  AccessDenied: {
    status: 403,
    heading: "Access Denied",
    paragraphs: ["You do not have permission to sign in."],
    link: "signin",
  },
  Verification: {
    status: 403,
    heading: "Unable to sign in",
    paragraphs: ["The sign in link is no longer valid.", "It may have been used already or it may have expired."],
    link: "signin",
  },
}

const defaultErrorView: ErrorView = { status: 200, heading: "Error", paragraphs: [], link: "site" }

/**
 * Renders the built-in error page (title "Error"). Status: `Configuration` 500, `AccessDenied` and `Verification`
 * 403, anything else (or nothing) 200. `AccessDenied` and `Verification` link to `signinUrl`, unknown codes to
 * `origin`. The code itself is never shown.
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
  const { status, heading, paragraphs, link } = view ?? defaultErrorView
  let linkHtml = ""
  if (link === "signin") linkHtml = `<a class="button" href="${escapeHtml(safeNavigationUrl(p.signinUrl))}">Sign in</a>`
  else if (link === "site") linkHtml = `<p>${siteLink(p.origin)}</p>`
  const content =
    '<main class="card error-page">' +
    `<h1>${escapeHtml(heading)}</h1>` +
    paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join("") +
    linkHtml +
    "</main>"
  return { status, html: renderDocument({ title: "Error", theme: p.theme, content }) }
}

// The HTML skeleton every built-in page shares: head, inline styles, themed body and optional logo.
import type { Theme } from "../types"
import { escapeHtml, safeImageUrl } from "./escape"
import { pageCss } from "./styles"
import { colorSchemeOf, themeCss } from "./theme"

/**
 * Wraps page content (already escaped HTML) in the document skeleton. `title` is escaped here.
 *
 * @example
 * ```ts
 * renderDocument({ title: "Sign In", theme: {}, content: "<main class=\"card\">…</main>" })
 * ```
 */
export function renderDocument(p: { title: string; theme: Theme; content: string }): string {
  const logo = safeImageUrl(p.theme.logo)
  return (
    "<!DOCTYPE html>" +
    '<html lang="en">' +
    "<head>" +
    '<meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="referrer" content="no-referrer">' +
    `<style>${pageCss}${themeCss(p.theme)}</style>` +
    `<title>${escapeHtml(p.title)}</title>` +
    "</head>" +
    `<body class="__next-auth-theme-${colorSchemeOf(p.theme)}">` +
    '<div class="page">' +
    (logo ? `<img class="brand-logo" src="${escapeHtml(logo)}" alt="">` : "") +
    p.content +
    "</div>" +
    "</body>" +
    "</html>"
  )
}

/**
 * A hidden input carrying the CSRF token (empty when CSRF checks are skipped).
 *
 * @example
 * ```ts
 * csrfInput("abc") // '<input type="hidden" name="csrfToken" value="abc">'
 * ```
 */
export function csrfInput(csrfToken: string): string {
  return `<input type="hidden" name="csrfToken" value="${escapeHtml(csrfToken)}">`
}

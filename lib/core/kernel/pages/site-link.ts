// A link back to the site, labelled with its host.
import { escapeHtml, safeNavigationUrl } from "./escape"

/**
 * A link to `origin` showing its host (`app.example:8080`) after `prefix` ("Back to "), or the origin string itself
 * when it is not a URL.
 *
 * @example
 * ```ts
 * siteLink("https://app.example") // '<a class="site" href="https://app.example">app.example</a>'
 * ```
 */
export function siteLink(origin: string, prefix = ""): string {
  let host = origin
  try {
    host = new URL(origin).host || origin
  } catch {
    // Not an absolute URL: show it as given (escaped).
  }
  return `<a class="site" href="${escapeHtml(safeNavigationUrl(origin))}">${escapeHtml(prefix + host)}</a>`
}

// HTML escaping and URL sanitising: every value interpolated into a page passes through here.
const htmlEntities: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
}

/**
 * Escapes a value for use in HTML text or in a double-quoted attribute: `& < > " '` become entities.
 * `null` and `undefined` become the empty string; other values are converted with `String()`.
 *
 * @example
 * ```ts
 * escapeHtml(`"><script>alert(1)</script>`) // "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
 * escapeHtml(undefined) // ""
 * ```
 */
export function escapeHtml(value: unknown): string {
  if (value === null || value === undefined) return ""
  return String(value).replace(/[&<>"']/g, (char) => htmlEntities[char] ?? char)
}

// RFC 3986 section 3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), followed by ":".
const schemePattern = /^([a-zA-Z][a-zA-Z0-9+.-]*):/

/**
 * Returns the scheme of a URL as a browser would read it (lowercase, without the colon), or `null` for a relative URL.
 * Browsers drop leading C0 controls and spaces and every tab or newline before parsing, so the check does too
 * (`" java\tscript:"` is a `javascript:` URL).
 */
function schemeOf(url: string): string | null {
  // eslint-disable-next-line no-control-regex -- stripping control characters is the point
  const normalised = url.replace(/^[\u0000-\u0020]+/, "").replace(/[\t\n\r]/g, "")
  const match = schemePattern.exec(normalised)
  return match?.[1] ? match[1].toLowerCase() : null
}

/**
 * Keeps a link or form target only when it is relative or uses `http:`/`https:`; anything else (`javascript:`,
 * `data:`, ...) becomes `"#"`. The result still needs {@link escapeHtml}.
 *
 * @example
 * ```ts
 * safeNavigationUrl("https://example.com/auth/signin") // unchanged
 * safeNavigationUrl("javascript:alert(1)") // "#"
 * ```
 */
export function safeNavigationUrl(url: string): string {
  const scheme = schemeOf(url)
  return scheme === null || scheme === "http" || scheme === "https" ? url : "#"
}

/**
 * Returns an image URL when it is relative, `http:`, `https:` or a `data:image/...` URL, else `undefined` (the image is
 * then left out). The result still needs {@link escapeHtml}.
 *
 * @example
 * ```ts
 * safeImageUrl("https://example.com/logo.svg") // unchanged
 * safeImageUrl("javascript:alert(1)") // undefined
 * ```
 */
export function safeImageUrl(url: string | undefined): string | undefined {
  if (!url) return undefined
  const scheme = schemeOf(url)
  if (scheme === null || scheme === "http" || scheme === "https") return url
  if (scheme === "data" && /^\s*data:image\//i.test(url)) return url
  return undefined
}

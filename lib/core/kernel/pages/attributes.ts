// Renders the extra attributes of a credentials input from the provider's config, dropping anything unsafe.
import type { CredentialInput } from "../../../providers/types"
import { escapeHtml } from "./escape"

// A conservative subset of the HTML attribute-name grammar: no quotes, spaces, `=`, `>` or `/` can appear.
const attributeName = /^[a-zA-Z][a-zA-Z0-9-]*$/

// Set by the page itself (`label` becomes the <label>, `type` is rendered first), or able to send the credentials
// elsewhere (`form*` overrides of the form's action, method, encoding or target).
const reserved: ReadonlySet<string> = new Set([
  "label",
  "type",
  "name",
  "id",
  "form",
  "formaction",
  "formenctype",
  "formmethod",
  "formnovalidate",
  "formtarget",
])

/**
 * The attributes of a credential input beyond `name`, `id` and `type`, as a string starting with a space (or `""`).
 * Names must match `/^[a-zA-Z][a-zA-Z0-9-]*$/` and must not be event handlers (`on*`); values are escaped and
 * double-quoted; `true` renders a bare boolean attribute; `false`, `null`, `undefined`, objects and functions are
 * left out.
 *
 * @example
 * ```ts
 * credentialAttributes({ label: "Password", type: "password", required: true, minlength: 8 })
 * // ' required minlength="8"'
 * ```
 */
export function credentialAttributes(input: CredentialInput): string {
  let html = ""
  const seen = new Set<string>()
  for (const [name, value] of Object.entries(input)) {
    const lower = name.toLowerCase()
    if (!attributeName.test(name) || lower.startsWith("on") || reserved.has(lower) || seen.has(lower)) continue
    if (value === true) {
      html += ` ${name}`
    } else if (typeof value === "string" || typeof value === "number" || typeof value === "bigint") {
      html += ` ${name}="${escapeHtml(value)}"`
    } else {
      continue
    }
    seen.add(lower)
  }
  return html
}

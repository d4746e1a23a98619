// The colours and mark of an OAuth/OIDC provider button, in the light and the dark scheme, with readable text.
import type { ProviderStyle } from "../../../providers/types"
import { contrastRatio, contrastingText, cssColor } from "./colors"
import { brandMarks } from "./brand-marks.generated"
import { escapeHtml } from "./escape"

/** WCAG AA for normal text. */
export const MIN_CONTRAST = 4.5

/** The card behind the buttons in the dark scheme (styles.ts `--gh-card-bg`). */
const DARK_CARD = "#1b1f24"

export interface ButtonColors {
  bg?: string
  fg?: string
  bgDark?: string
  fgDark?: string
}

/** `text` when it is readable on `bg`, else black or white, whichever contrasts more (always >= 4.58:1). */
function readableText(bg: string, text: string | undefined): string | undefined {
  const ratio = text === undefined ? undefined : contrastRatio(bg, text)
  if (text !== undefined && (ratio === undefined || ratio >= MIN_CONTRAST)) return text
  return contrastingText(bg) ?? text
}

/**
 * The button colours of a provider. Light: the brand colour with readable text (a given `text` colour that is too
 * faint is replaced by black or white). Dark: `bgDark`/`textDark` when given; otherwise a brand colour that would melt
 * into the dark card (near black, deep purple) becomes the text on a white button, and the rest stay as in light.
 *
 * @example
 * ```ts
 * buttonColors({ brandColor: "#24292f" }) // { bg: "#24292f", fg: "#fff", bgDark: "#ffffff", fgDark: "#24292f" }
 * ```
 */
export function buttonColors(style: ProviderStyle | undefined): ButtonColors {
  const bg = cssColor(style?.brandColor ?? style?.bg)
  if (bg === undefined) return {}
  const fg = readableText(bg, cssColor(style?.text))
  const colors: ButtonColors = { bg, fg }
  const bgDark = cssColor(style?.bgDark)
  if (bgDark !== undefined) {
    colors.bgDark = bgDark
    colors.fgDark = readableText(bgDark, cssColor(style?.textDark))
  } else {
    const againstCard = contrastRatio(bg, DARK_CARD)
    if (againstCard !== undefined && againstCard < 1.6) {
      colors.bgDark = "#ffffff"
      colors.fgDark = readableText("#ffffff", bg)
    }
  }
  return colors
}

/** The `style` attribute value setting a button's colour custom properties (validated colours only). */
export function buttonStyle(colors: ButtonColors): string {
  const declarations = [
    colors.bg && `--provider-bg:${colors.bg}`,
    colors.fg && `--provider-fg:${colors.fg}`,
    colors.bgDark && `--provider-bg-dark:${colors.bgDark}`,
    colors.fgDark && `--provider-fg-dark:${colors.fgDark}`,
  ].filter(Boolean)
  return declarations.join(";")
}

/** Words a name starts with that say nothing of the provider ("the local identity provider" → "L"). */
const FILLER = new Set(["the", "a", "an", "my", "our", "your"])

/**
 * The built-in mark of a provider without a `logo`: its brand mark as inline SVG when the id is a catalogue provider
 * whose mark the page embeds (from simple-icons, built into the library: no image request, nothing fetched), else a
 * monogram (the initial of the name's first significant word in a ring). Drawn in the button's text colour.
 *
 * @example
 * ```ts
 * providerMark("GitHub", "github") // '<svg class="provider-mark" …><path … d="M12 .297c-6.63…"/></svg>'
 * providerMark("the local identity provider", "local-idp") // the monogram "L"
 * ```
 */
export function providerMark(name: string, id?: string): string {
  const open =
    '<svg class="provider-mark" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">'
  const brand = id !== undefined && Object.hasOwn(brandMarks, id) ? brandMarks[id] : undefined
  if (brand) return `${open}<path fill="currentColor" d="${escapeHtml(brand.path)}"/></svg>`
  const words = name.trim().split(/\s+/)
  const word = words.find((w) => !FILLER.has(w.toLowerCase())) ?? words[0] ?? ""
  const initial = [...word][0]?.toUpperCase() ?? "?"
  return (
    open +
    '<circle cx="12" cy="12" r="10.5" fill="none" stroke="currentColor" stroke-width="1.8"/>' +
    '<text x="12" y="16.4" text-anchor="middle" font-size="12" font-weight="700" ' +
    `font-family="system-ui,sans-serif" fill="currentColor">${escapeHtml(initial)}</text></svg>`
  )
}

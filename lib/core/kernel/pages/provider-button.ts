// The colours and mark of an OAuth/OIDC provider button, in the light and the dark scheme, with readable text.
import type { ProviderStyle } from "../../../providers/types"
import { contrastRatio, contrastingText, cssColor } from "./colors"
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

/**
 * The built-in mark of a provider without a `logo`: an inline SVG monogram (its initial in a ring, drawn in the
 * button's text colour), so the page needs no image request and ships no third-party trademark artwork.
 *
 * @example
 * ```ts
 * providerMark("GitHub") // '<svg class="provider-mark" …>…G…</svg>'
 * ```
 */
export function providerMark(name: string): string {
  const initial = [...name.trim()][0]?.toUpperCase() ?? "?"
  return (
    '<svg class="provider-mark" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">' +
    '<circle cx="12" cy="12" r="10.5" fill="none" stroke="currentColor" stroke-width="1.8"/>' +
    '<text x="12" y="16.4" text-anchor="middle" font-size="12" font-weight="700" ' +
    `font-family="system-ui,sans-serif" fill="currentColor">${escapeHtml(initial)}</text></svg>`
  )
}

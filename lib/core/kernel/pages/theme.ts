// Turns a `Theme` into the body class and the CSS custom properties of a page, accepting only validated values.
import type { Theme } from "../types"
import { cssColor } from "./colors"

export type ColorScheme = "auto" | "dark" | "light"

/**
 * The colour scheme of a theme; anything but `"dark"` or `"light"` is `"auto"`.
 *
 * @example
 * ```ts
 * colorSchemeOf({ colorScheme: "dark" }) // "dark"
 * ```
 */
export function colorSchemeOf(theme: Theme): ColorScheme {
  return theme.colorScheme === "dark" || theme.colorScheme === "light" ? theme.colorScheme : "auto"
}

/**
 * A CSS rule that sets the brand colour and button text colour from the theme, or `""` when neither is valid.
 * Invalid colours are ignored, so the rule only ever contains colour values.
 *
 * @example
 * ```ts
 * themeCss({ brandColor: "#0a7", buttonText: "white" }) // "body{--gh-brand:#0a7;--gh-brand-text:white}"
 * ```
 */
export function themeCss(theme: Theme): string {
  const declarations: string[] = []
  const brand = cssColor(theme.brandColor)
  const buttonText = cssColor(theme.buttonText)
  if (brand) declarations.push(`--gh-brand:${brand}`)
  if (buttonText) declarations.push(`--gh-brand-text:${buttonText}`)
  return declarations.length > 0 ? `body{${declarations.join(";")}}` : ""
}

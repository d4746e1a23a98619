// Strict recognition of CSS colour values, so that a theme or provider colour can never carry other CSS.

// CSS Color Module Level 4, section 6.1: the named colours, plus `transparent` and `currentcolor`.
const namedColors: ReadonlySet<string> = new Set(
  (
    "aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown burlywood " +
    "cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan darkgoldenrod " +
    "darkgray darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon " +
    "darkseagreen darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue dimgray " +
    "dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite gold goldenrod gray green " +
    "greenyellow grey honeydew hotpink indianred indigo ivory khaki lavender lavenderblush lawngreen lemonchiffon " +
    "lightblue lightcoral lightcyan lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon " +
    "lightseagreen lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime limegreen linen magenta " +
    "maroon mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen " +
    "mediumturquoise mediumvioletred midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive " +
    "olivedrab orange orangered orchid palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru " +
    "pink plum powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown seagreen " +
    "seashell sienna silver skyblue slateblue slategray slategrey snow springgreen steelblue tan teal thistle tomato " +
    "turquoise violet wheat white whitesmoke yellow yellowgreen transparent currentcolor"
  ).split(" "),
)

// `#` followed by 3, 4, 6 or 8 hex digits (CSS Color 4, section 5.2).
const hexColor = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i

// rgb()/rgba()/hsl()/hsla() in legacy or modern syntax: numbers, percentages, angle units and `none`, separated by
// spaces, commas or one slash. No parentheses, quotes, semicolons, braces or backslashes can get through.
const colorFunction =
  /^(?:rgba?|hsla?)\(\s*(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?(?:%|deg|grad|rad|turn)?|none)(?:\s*[,/]?\s*(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?(?:%|deg|grad|rad|turn)?|none)){2,3}\s*\)$/i

/**
 * Returns the colour, trimmed, when it is a `#hex` colour, an `rgb()`/`rgba()`/`hsl()`/`hsla()` function or a CSS
 * colour keyword; otherwise `undefined`, so that the caller falls back to its default.
 *
 * @example
 * ```ts
 * cssColor("#24292f") // "#24292f"
 * cssColor("red; background: url(https://evil)") // undefined
 * ```
 */
export function cssColor(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined
  const color = value.trim()
  if (color.length === 0 || color.length > 64) return undefined
  if (hexColor.test(color) || colorFunction.test(color)) return color
  return namedColors.has(color.toLowerCase()) ? color : undefined
}

/** WCAG 2 relative luminance of a `#hex` colour (alpha ignored), or `undefined` for any other syntax. */
export function luminance(color: string): number | undefined {
  if (!hexColor.test(color)) return undefined
  let hex = color.slice(1)
  if (hex.length <= 4) hex = [...hex].map((digit) => digit + digit).join("")
  const [r, g, b] = [0, 2, 4].map((i) => {
    const channel = parseInt(hex.slice(i, i + 2), 16) / 255
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/**
 * WCAG 2 contrast ratio of two `#hex` colours (1 to 21), or `undefined` when either is not a `#hex` colour.
 *
 * @example
 * ```ts
 * contrastRatio("#000", "#fff") // 21
 * ```
 */
export function contrastRatio(a: string, b: string): number | undefined {
  const la = luminance(a)
  const lb = luminance(b)
  if (la === undefined || lb === undefined) return undefined
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)
}

/**
 * Black or white, whichever contrasts more with a `#hex` background (WCAG 2 relative luminance); `undefined` for any
 * other colour syntax. Used when a provider sets a button background but no text colour: the page's own text colour
 * is dark in the light scheme and would be unreadable on the dark brand colours of most catalogue providers.
 *
 * @example
 * ```ts
 * contrastingText("#24292f") // "#fff"
 * contrastingText("#1db954") // "#000"
 * ```
 */
export function contrastingText(background: string): "#fff" | "#000" | undefined {
  const l = luminance(background)
  if (l === undefined) return undefined
  // Contrast with white is 1.05 / (L + 0.05), with black (L + 0.05) / 0.05; they are equal at L ≈ 0.179.
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? "#fff" : "#000"
}

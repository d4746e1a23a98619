import { renderSignOutPage } from "../../../lib/core/kernel/pages"
import { cssColor } from "../../../lib/core/kernel/pages/colors"
import { colorSchemeOf, themeCss } from "../../../lib/core/kernel/pages/theme"
import type { Theme } from "../../../lib/core/kernel/types"
import { expectNoRawPayload, hostile } from "./payloads"

describe("cssColor", () => {
  it.each([
    "#fff",
    "#FFFA",
    "#24292f",
    "#24292f80",
    "rgb(0, 0, 0)",
    "rgba(12,34,56,0.5)",
    "rgb(0 0 0 / 50%)",
    "hsl(210deg 40% 50%)",
    "hsla(210, 40%, 50%, .3)",
    "red",
    "RebeccaPurple",
    "transparent",
    "currentColor",
  ])("accepts %j", (color) => expect(cssColor(color)).toBe(color))

  it("trims surrounding spaces", () => expect(cssColor("  #abc ")).toBe("#abc"))

  it.each([
    "",
    "#ggg",
    "#12345",
    "red;background:url(https://evil.example/x)",
    "#fff}body{display:none",
    "red</style><script>alert(1)</script>",
    "expression(alert(1))",
    "url(https://evil.example/x)",
    "var(--x)",
    "rgb(0,0,0);color:red",
    "rgb(0,0,url(x))",
    "notacolour",
    "r\\65 d",
  ])("rejects %j", (color) => expect(cssColor(color)).toBeUndefined())

  it("rejects non-strings and over-long values", () => {
    expect(cssColor(undefined)).toBeUndefined()
    expect(cssColor(123)).toBeUndefined()
    expect(cssColor(`rgb(${"1 ".repeat(40)})`)).toBeUndefined()
  })
})

describe("theme", () => {
  it("defaults the colour scheme to auto and rejects unknown values", () => {
    expect(colorSchemeOf({})).toBe("auto")
    expect(colorSchemeOf({ colorScheme: "dark" })).toBe("dark")
    expect(colorSchemeOf({ colorScheme: "light" })).toBe("light")
    expect(colorSchemeOf({ colorScheme: hostile } as unknown as Theme)).toBe("auto")
  })

  it("sets brandColor and buttonText as custom properties", () => {
    expect(themeCss({ brandColor: "#0a7", buttonText: "white" })).toBe("body{--gh-brand:#0a7;--gh-brand-text:white}")
    expect(themeCss({})).toBe("")
  })

  it("ignores colour values that try to inject CSS or HTML", () => {
    const theme: Theme = {
      brandColor: "red;}</style><script>alert(1)</script><style>",
      buttonText: "#fff;background-image:url(https://evil.example/track)",
      colorScheme: hostile as Theme["colorScheme"],
      logo: "javascript:alert(1)",
    }
    expect(themeCss(theme)).toBe("")
    const { html } = renderSignOutPage({ csrfToken: "t", action: "https://app.example/auth/signout", theme })
    expectNoRawPayload(html)
    expect(html).not.toContain("evil.example")
    expect(html).not.toContain("--gh-brand:red")
    expect(html).not.toContain("javascript:")
    expect(html).toContain('<body class="__next-auth-theme-auto">')
  })

  it("renders the theme logo, escaped, and the colours in the page", () => {
    const theme: Theme = {
      colorScheme: "dark",
      brandColor: "rgb(10, 20, 30)",
      buttonText: "#fefefe",
      logo: `https://cdn.example/logo.svg?a="><script>alert(1)</script>`,
    }
    const { html } = renderSignOutPage({ csrfToken: "t", action: "https://app.example/auth/signout", theme })
    expectNoRawPayload(html)
    expect(html).toContain('<body class="__next-auth-theme-dark">')
    expect(html).toContain("body{--gh-brand:rgb(10, 20, 30);--gh-brand-text:#fefefe}")
    expect(html).toContain(
      '<img class="brand-logo" src="https://cdn.example/logo.svg?a=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" alt="">',
    )
  })
})

describe("contrastingText", () => {
  it("picks white on dark and black on light backgrounds, nothing for non-hex values", async () => {
    const { contrastingText } = await import("../../../lib/core/kernel/pages/colors")
    expect(contrastingText("#24292f")).toBe("#fff")
    expect(contrastingText("#000")).toBe("#fff")
    expect(contrastingText("#1db954")).toBe("#000")
    expect(contrastingText("#ffffff")).toBe("#000")
    expect(contrastingText("#fffa")).toBe("#000")
    expect(contrastingText("rgb(0,0,0)")).toBeUndefined()
    expect(contrastingText("red")).toBeUndefined()
  })
})

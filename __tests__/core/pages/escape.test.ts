import { escapeHtml } from "../../../lib/core/kernel/pages"
import { safeImageUrl, safeNavigationUrl } from "../../../lib/core/kernel/pages/escape"
import { breakout, breakoutEscaped, handler, handlerEscaped } from "./payloads"

describe("escapeHtml", () => {
  it("escapes the five HTML-significant characters", () => {
    expect(escapeHtml(`&<>"'`)).toBe("&amp;&lt;&gt;&quot;&#39;")
  })

  it("escapes the payloads", () => {
    expect(escapeHtml(breakout)).toBe(breakoutEscaped)
    expect(escapeHtml(handler)).toBe(handlerEscaped)
  })

  it("does not double-decode: an entity is escaped again", () => {
    expect(escapeHtml("&lt;")).toBe("&amp;lt;")
  })

  it("turns null and undefined into the empty string and stringifies other values", () => {
    expect(escapeHtml(null)).toBe("")
    expect(escapeHtml(undefined)).toBe("")
    expect(escapeHtml(42)).toBe("42")
    expect(escapeHtml(false)).toBe("false")
  })

  it("leaves safe text alone", () => {
    expect(escapeHtml("Sign in with GitHub")).toBe("Sign in with GitHub")
  })
})

describe("safeNavigationUrl", () => {
  it.each(["https://a.example/x", "http://localhost:3000/auth/signout?x=1", "/auth/signin", "signin", ""])(
    "keeps %j",
    (url) => expect(safeNavigationUrl(url)).toBe(url),
  )

  it.each([
    "javascript:alert(1)",
    " JavaScript:alert(1)",
    "java\tscript:alert(1)",
    "\u0001javascript:x",
    "data:text/html,x",
  ])("replaces %j with #", (url) => expect(safeNavigationUrl(url)).toBe("#"))
})

describe("safeImageUrl", () => {
  it("keeps http(s), relative and data:image URLs", () => {
    expect(safeImageUrl("https://cdn.example/logo.svg")).toBe("https://cdn.example/logo.svg")
    expect(safeImageUrl("/logo.png")).toBe("/logo.png")
    expect(safeImageUrl("data:image/png;base64,AAAA")).toBe("data:image/png;base64,AAAA")
  })

  it("drops empty values and other schemes", () => {
    expect(safeImageUrl(undefined)).toBeUndefined()
    expect(safeImageUrl("")).toBeUndefined()
    expect(safeImageUrl("javascript:alert(1)")).toBeUndefined()
    expect(safeImageUrl("data:text/html,<script>")).toBeUndefined()
  })
})

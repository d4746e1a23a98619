// Hostile values used by the page tests, with the escaped forms that must appear instead.
export const breakout = `"><script>alert(1)</script>`
export const breakoutEscaped = "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
export const handler = `' onmouseover='x`
export const handlerEscaped = "&#39; onmouseover=&#39;x"
/** Both payloads in one value. */
export const hostile = breakout + handler
export const hostileEscaped = breakoutEscaped + handlerEscaped

/** Asserts that neither raw payload made it into the HTML and that no script element exists at all. */
export function expectNoRawPayload(html: string): void {
  expect(html).not.toContain(breakout)
  expect(html).not.toContain(handler)
  expect(html).not.toMatch(/<script/i)
  expect(html).not.toContain("onmouseover='")
}

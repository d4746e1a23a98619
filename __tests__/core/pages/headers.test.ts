import { pageHeaders } from "../../../lib/core/kernel/pages"

describe("pageHeaders", () => {
  it("keeps Content-Type exactly text/html and adds the hardening headers", () => {
    expect(pageHeaders).toEqual({
      "Content-Type": "text/html",
      "Content-Security-Policy":
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; " +
        "form-action 'self' https: http:; frame-ancestors 'none'; base-uri 'none'",
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
    })
  })

  it("is frozen and usable as Response headers", () => {
    expect(Object.isFrozen(pageHeaders)).toBe(true)
    const headers = new Headers(pageHeaders)
    expect(headers.get("content-type")).toBe("text/html")
    expect(headers.get("x-frame-options")).toBe("DENY")
  })

  it("allows no script at all", () => {
    const csp = pageHeaders["Content-Security-Policy"] ?? ""
    expect(csp).toMatch(/^default-src 'none';/)
    expect(csp).not.toContain("script-src")
  })
})

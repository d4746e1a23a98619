import { renderVerifyRequestPage } from "../../../lib/core/kernel/pages"
import { lifetimeInWords } from "../../../lib/core/kernel/pages/verify-request"
import { expectNoRawPayload, hostile, hostileEscaped } from "./payloads"

describe("renderVerifyRequestPage", () => {
  it("tells the user to check their email and links back to the origin by host", () => {
    const { status, html } = renderVerifyRequestPage({ origin: "https://app.example:8443", theme: {} })
    expect(status).toBe(200)
    expect(html).toContain("<title>Verify Request</title>")
    expect(html).toContain('<body class="__next-auth-theme-auto"><div class="page">')
    expect(html).toContain("<h1>Check your email</h1>")
    expect(html).toContain("<p>A sign in link has been sent to your email address.</p>")
    expect(html).toContain('<a class="site" href="https://app.example:8443">Back to app.example:8443</a>')
  })

  it("escapes an origin that is not a URL", () => {
    const { html } = renderVerifyRequestPage({ origin: hostile, theme: {} })
    expectNoRawPayload(html)
    expect(html).toContain(`<a class="site" href="${hostileEscaped}">Back to ${hostileEscaped}</a>`)
  })

  it("escapes a URL origin carrying the payload", () => {
    const { html } = renderVerifyRequestPage({ origin: `https://app.example/${hostile}`, theme: {} })
    expectNoRawPayload(html)
    expect(html).toContain(`href="https://app.example/${hostileEscaped}">Back to app.example</a>`)
  })

  it("neutralises a javascript: origin", () => {
    const { html } = renderVerifyRequestPage({ origin: "javascript:alert(1)", theme: {} })
    expect(html).toContain('<a class="site" href="#">')
  })
})

describe("the link lifetime", () => {
  it.each([
    [600, "10 minutes"],
    [60, "1 minute"],
    [90, "2 minutes"],
    [3600, "1 hour"],
    [86400, "24 hours"],
    [7 * 86400, "7 days"],
  ])("%d seconds reads %j", (seconds, words) => {
    expect(lifetimeInWords(seconds)).toBe(words)
    const { html } = renderVerifyRequestPage({ origin: "https://app.example", theme: {}, maxAge: seconds })
    expect(html).toContain(`<p>The link is valid for ${words} and works once.</p>`)
  })

  it("is left out when unknown", () => {
    expect(renderVerifyRequestPage({ origin: "https://app.example", theme: {} }).html).not.toContain("valid for")
  })
})

import { renderVerifyRequestPage } from "../../../lib/core/pages"
import { expectNoRawPayload, hostile, hostileEscaped } from "./payloads"

describe("renderVerifyRequestPage", () => {
  it("tells the user to check their email and links back to the origin by host", () => {
    const { status, html } = renderVerifyRequestPage({ origin: "https://app.example:8443", theme: {} })
    expect(status).toBe(200)
    expect(html).toContain("<title>Verify Request</title>")
    expect(html).toContain('<body class="__next-auth-theme-auto"><div class="page">')
    expect(html).toContain("<h1>Check your email</h1>")
    expect(html).toContain("<p>A sign in link has been sent to your email address.</p>")
    expect(html).toContain('<a class="site" href="https://app.example:8443">app.example:8443</a>')
  })

  it("escapes an origin that is not a URL", () => {
    const { html } = renderVerifyRequestPage({ origin: hostile, theme: {} })
    expectNoRawPayload(html)
    expect(html).toContain(`<a class="site" href="${hostileEscaped}">${hostileEscaped}</a>`)
  })

  it("escapes a URL origin carrying the payload", () => {
    const { html } = renderVerifyRequestPage({ origin: `https://app.example/${hostile}`, theme: {} })
    expectNoRawPayload(html)
    expect(html).toContain(`href="https://app.example/${hostileEscaped}">app.example</a>`)
  })

  it("neutralises a javascript: origin", () => {
    const { html } = renderVerifyRequestPage({ origin: "javascript:alert(1)", theme: {} })
    expect(html).toContain('<a class="site" href="#">')
  })
})

import { renderErrorPage } from "../../../lib/core/kernel/pages"
import { expectNoRawPayload, hostile, hostileEscaped } from "./payloads"

const origin = "https://app.example"
const signinUrl = `${origin}/auth/signin`
const render = (error?: string) => renderErrorPage({ error, origin, signinUrl, theme: {} })

describe("renderErrorPage", () => {
  it("Configuration: 500 Server error, a way back to the site but no retry", () => {
    const { status, html } = render("Configuration")
    expect(status).toBe(500)
    expect(html).toContain("<title>Error</title>")
    expect(html).toContain("<h1>Server error</h1>")
    expect(html).toContain("<p>There is a problem with the server configuration.</p>")
    expect(html).toContain("<p>Check the server logs for more information.</p>")
    expect(html).toContain(`<a class="site" href="${origin}">Back to app.example</a>`)
    expect(html).not.toContain("Try again")
  })

  it("AccessDenied: 403 with Try again and Back to the site", () => {
    const { status, html } = render("AccessDenied")
    expect(status).toBe(403)
    expect(html).toContain("<h1>Access Denied</h1>")
    expect(html).toContain("<p>You do not have permission to sign in.</p>")
    expect(html).toContain(`<a class="button" href="${signinUrl}">Try again</a>`)
    expect(html).toContain(`<a class="site" href="${origin}">Back to app.example</a>`)
  })

  it("Verification: 403 with Try again", () => {
    const { status, html } = render("Verification")
    expect(status).toBe(403)
    expect(html).toContain("<h1>Unable to sign in</h1>")
    expect(html).toContain("<p>The sign in link is no longer valid.</p>")
    expect(html).toContain("<p>It may have been used already or it may have expired.</p>")
    expect(html).toContain(`<a class="button" href="${signinUrl}">Try again</a>`)
  })

  it.each([undefined, "", "Default", "OAuthSignin", "toString", "__proto__"])(
    "%j: 200 Error with an explanation, Try again and Back to the site",
    (error) => {
      const { status, html } = render(error)
      expect(status).toBe(200)
      expect(html).toContain("<title>Error</title>")
      expect(html).toContain("<h1>Error</h1>")
      expect(html).toContain("<p>Something went wrong and you could not be signed in.</p>")
      expect(html).toContain(`<a class="button" href="${signinUrl}">Try again</a>`)
      expect(html).toContain(`<a class="site" href="${origin}">Back to app.example</a>`)
    },
  )

  it("never echoes the error value", () => {
    const { status, html } = render(hostile)
    expect(status).toBe(200)
    expectNoRawPayload(html)
    expect(html).not.toContain(hostileEscaped)
  })

  it("escapes origin and signinUrl", () => {
    const denied = renderErrorPage({ error: "AccessDenied", origin, signinUrl: `${signinUrl}?${hostile}`, theme: {} })
    expectNoRawPayload(denied.html)
    expect(denied.html).toContain(`href="${signinUrl}?${hostileEscaped}">Try again</a>`)
    const other = renderErrorPage({ error: "x", origin: hostile, signinUrl, theme: {} })
    expectNoRawPayload(other.html)
    expect(other.html).toContain(`<a class="site" href="${hostileEscaped}">Back to ${hostileEscaped}</a>`)
  })

  it("applies the theme", () => {
    expect(renderErrorPage({ origin, signinUrl, theme: { colorScheme: "dark" } }).html).toContain(
      '<body class="__next-auth-theme-dark">',
    )
  })
})

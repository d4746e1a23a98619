import { renderSignOutPage } from "../../../lib/core/kernel/pages"
import { expectNoRawPayload, hostile, hostileEscaped } from "./payloads"

describe("renderSignOutPage", () => {
  it("renders the confirmation form posting csrfToken to the request URL", () => {
    const action = "https://app.example/auth/signout?callbackUrl=%2Fbye&x=1"
    const { status, html } = renderSignOutPage({ csrfToken: "tok", action, theme: { colorScheme: "light" } })
    expect(status).toBe(200)
    expect(html.startsWith('<!DOCTYPE html><html lang="en">')).toBe(true)
    expect(html).toContain("<title>Sign Out</title>")
    expect(html).toContain('<body class="__next-auth-theme-light"><div class="page">')
    expect(html).toContain("<h1>Sign out</h1>")
    expect(html).toContain("<p>Are you sure you want to sign out?</p>")
    expect(html).toContain(
      '<form action="https://app.example/auth/signout?callbackUrl=%2Fbye&amp;x=1" method="post">' +
        '<input type="hidden" name="csrfToken" value="tok">' +
        '<button type="submit" class="button" id="submitButton">Sign out</button></form>',
    )
  })

  it("with a return target: a hidden callbackUrl and a Cancel link back to it", () => {
    const { html } = renderSignOutPage({ csrfToken: "t", action: "/auth/signout", theme: {}, returnTo: "/page" })
    expect(html).toContain('<input type="hidden" name="callbackUrl" value="/page">')
    expect(html).toContain('<a class="site" href="/page">Cancel</a>')
  })

  it("a visitor without a session: 'You are not signed in', Sign in and Back to the site, no form", () => {
    const { html } = renderSignOutPage({
      csrfToken: "t",
      action: "/auth/signout",
      theme: {},
      signedIn: false,
      signinUrl: "https://app.example/auth/signin",
      origin: "https://app.example",
    })
    expect(html).toContain("<h1>Sign out</h1><p>You are not signed in.</p>")
    expect(html).toContain('<a class="button" href="https://app.example/auth/signin">Sign in</a>')
    expect(html).toContain('<a class="site" href="https://app.example">Back to app.example</a>')
    expect(html).not.toContain("<form")
    expect(html).not.toContain("Are you sure")
  })

  it("renders an empty csrfToken (skipCSRFCheck)", () => {
    const { html } = renderSignOutPage({ csrfToken: "", action: "/auth/signout", theme: {} })
    expect(html).toContain('<input type="hidden" name="csrfToken" value="">')
  })

  it("escapes the csrfToken and the action URL", () => {
    const { html } = renderSignOutPage({
      csrfToken: hostile,
      action: `https://app.example/auth/signout?${hostile}`,
      theme: {},
    })
    expectNoRawPayload(html)
    expect(html).toContain(`name="csrfToken" value="${hostileEscaped}"`)
    expect(html).toContain(`<form action="https://app.example/auth/signout?${hostileEscaped}" method="post">`)
  })

  it("neutralises a javascript: action", () => {
    const { html } = renderSignOutPage({ csrfToken: "t", action: "javascript:alert(1)", theme: {} })
    expect(html).toContain('<form action="#" method="post">')
  })
})

// The pages and mails of two-factor sign-in and email codes: the second-factor page (both methods, errors, no
// script), the verify-request code form, and the default messages with a code.
import { renderTwoFactorPage } from "../../../lib/core/kernel/pages/two-factor"
import { renderVerifyRequestPage } from "../../../lib/core/kernel/pages/verify-request"
import { signInMessage, twoFactorMessage } from "../../../lib/providers/internal/email-message"

const base = { action: "/auth/two-factor", csrfToken: "tok", theme: {}, signInUrl: "/auth/signin" }

describe("the two-factor page", () => {
  it("TOTP: the code form with its autofill attributes, trust checkbox, backup-code details and no script", () => {
    const { status, html } = renderTwoFactorPage({ ...base, method: "totp", trustMaxAge: 2_592_000 })
    expect(status).toBe(200)
    expect(html).toContain("<title>Two-step verification</title>")
    expect(html).toContain("Enter the 6-digit code from your authenticator app.")
    expect(html).toContain(
      '<input class="field" id="code" name="code" type="text" autocomplete="one-time-code" inputmode="numeric" pattern="[0-9 ]*" maxlength="7" required autofocus>',
    )
    expect(html).toContain('<input type="checkbox" name="trustDevice" value="1"> Trust this device for 30 days')
    expect(html).toContain("<details><summary>Use a backup code</summary>")
    expect(html).toContain('name="backupCode" type="text" autocomplete="off"')
    expect(html).toContain('<input type="hidden" name="csrfToken" value="tok">')
    expect(html).not.toContain("<script")
  })

  it("email: the masked address, the resend form, no backup codes; trust hidden when off", () => {
    const { html } = renderTwoFactorPage({
      ...base,
      method: "email",
      trustMaxAge: false,
      sentTo: "a…@example.com",
      sent: true,
    })
    expect(html).toContain('We sent a code to <strong class="address">a…@example.com</strong>.')
    expect(html).toContain('name="resend" value="1"')
    expect(html).toContain("A new code is on its way.")
    expect(html).not.toContain("backupCode")
    expect(html).not.toContain("trustDevice")
  })

  it("errors from the query, escaped", () => {
    expect(
      renderTwoFactorPage({ ...base, method: "totp", trustMaxAge: false, error: "TwoFactorInvalid" }).html,
    ).toContain("That code didn&#39;t work. Check it and try again.")
    expect(
      renderTwoFactorPage({ ...base, method: "totp", trustMaxAge: false, error: "RateLimited", retry: 61 }).html,
    ).toContain("Too many attempts. Try again in 2 minutes.")
    expect(renderTwoFactorPage({ ...base, method: "totp", trustMaxAge: false, error: "<b>" }).html).not.toContain("<b>")
  })
})

describe("the verify-request page with codes", () => {
  it("adds the code form (no address field while the address is sealed) and the Verification message", () => {
    const { html } = renderVerifyRequestPage({
      origin: "https://app.example",
      theme: {},
      address: "a…@example.com",
      code: {
        action: "https://app.example/auth/callback/email",
        csrfToken: "t",
        length: 6,
        withAddress: false,
        error: "Verification",
      },
    })
    expect(html).toContain('<form method="post" action="https://app.example/auth/callback/email">')
    expect(html).toContain('autocomplete="one-time-code" inputmode="numeric" pattern="[0-9 ]*" maxlength="7" required>')
    expect(html).not.toContain('name="email"')
    expect(html).toContain("That code didn't work or has expired.")
    const withAddress = renderVerifyRequestPage({
      origin: "https://app.example",
      theme: {},
      code: { action: "/a", csrfToken: "t", length: 8, withAddress: true },
    }).html
    expect(withAddress).toContain(
      '<input class="field" id="email" type="email" name="email" autocomplete="email" required>',
    )
    expect(withAddress).toContain('maxlength="9"')
  })
})

describe("the default messages", () => {
  it("the sign-in mail shows the code under the button in both parts", () => {
    const m = signInMessage({ url: "https://app.example/auth/callback/email?token=x", code: "123456" })
    expect(m.text).toContain("Or enter this code: 123456")
    expect(m.html).toContain("Or enter this code:")
    expect(m.html).toContain("123456")
    expect(signInMessage({ url: "https://app.example/x", code: "<b>" }).html).not.toContain("<b>")
  })

  it("the second-factor mail: subject, the code, no link, the lifetime", () => {
    const m = twoFactorMessage({
      code: "654321",
      url: "https://app.example/auth/two-factor",
      expires: new Date(Date.now() + 600_000),
    })
    expect(m.subject).toBe("Your verification code")
    expect(m.text).toContain("654321")
    expect(m.text).toContain("It expires in 10 minutes.")
    expect(m.html).not.toContain("href=")
  })
})

import { renderSignInPage, signInErrorMessage } from "../../../lib/core/kernel/pages"
import type { PageProvider } from "../../../lib/core/kernel/pages"
import { breakoutEscaped, expectNoRawPayload, handler, handlerEscaped, hostile, hostileEscaped } from "./payloads"

const origin = "https://app.example"

function provider(id: string, type: PageProvider["type"], extra: Partial<PageProvider> = {}): PageProvider {
  return {
    id,
    name: id.toUpperCase(),
    type,
    signinUrl: `${origin}/auth/signin/${id}`,
    callbackUrl: `${origin}/auth/callback/${id}`,
    ...extra,
  }
}

const github = provider("github", "oauth", { name: "GitHub", style: { brandColor: "#24292f", text: "#fff" } })
const google = provider("google", "oidc", { name: "Google", style: { logo: "https://cdn.example/google.svg" } })
const email = provider("email", "email", { name: "Email" })
const credentials = provider("credentials", "credentials", {
  name: "Credentials",
  credentials: {
    username: { label: "Username" },
    password: { label: "Password", type: "password", required: true },
  },
})

function render(extra: Partial<Parameters<typeof renderSignInPage>[0]> = {}) {
  return renderSignInPage({ providers: [github, google, email, credentials], csrfToken: "tok", theme: {}, ...extra })
}

/** The `<form ...>...</form>` elements of a page, in order. */
function forms(html: string): string[] {
  return html.match(/<form\b[^>]*>[\s\S]*?<\/form>/g) ?? []
}

describe("renderSignInPage: structure", () => {
  it("answers 200 with a complete document titled Sign In", () => {
    const { status, html } = render()
    expect(status).toBe(200)
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true)
    expect(html).toContain('<html lang="en">')
    expect(html).toContain('<meta charset="utf-8">')
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">')
    expect(html).toMatch(/<style>[^<]+<\/style>/)
    expect(html).toContain("<title>Sign In</title>")
    expect(html).toContain('<body class="__next-auth-theme-auto"><div class="page">')
    expect(html.endsWith("</div></body></html>")).toBe(true)
  })

  it("renders an OAuth/OIDC button form posting to signinUrl with csrfToken and callbackUrl", () => {
    const [gh, gg] = forms(render({ callbackUrl: `${origin}/dashboard` }).html)
    expect(gh).toContain(`<form action="${origin}/auth/signin/github" method="post">`)
    expect(gh).toContain('<input type="hidden" name="csrfToken" value="tok">')
    expect(gh).toContain(`<input type="hidden" name="callbackUrl" value="${origin}/dashboard">`)
    expect(gh).toContain("<span>Sign in with GitHub</span>")
    // Near-black brands turn into a white button with brand-coloured text in dark mode (it would melt into the card).
    expect(gh).toContain(
      'style="--provider-bg:#24292f;--provider-fg:#fff;--provider-bg-dark:#ffffff;--provider-fg-dark:#24292f"',
    )
    expect(gh).toContain('<svg class="provider-mark"')
    expect(gh).not.toContain("<img")
    expect(gg).toContain(`<form action="${origin}/auth/signin/google" method="post">`)
    expect(gg).toContain('<img class="provider-logo" src="https://cdn.example/google.svg"')
    expect(gg).toContain("<span>Sign in with Google</span>")
  })

  it("omits the callbackUrl field when none is given and never links a default logo", () => {
    const { html } = render()
    expect(html).not.toContain('name="callbackUrl"')
    expect(html).not.toContain("authjs.dev")
  })

  it("uses the deprecated style.bg when brandColor is absent", () => {
    const legacy = provider("legacy", "oauth", { style: { bg: "hsl(200, 50%, 40%)" } })
    const { html } = renderSignInPage({ providers: [legacy], csrfToken: "t", theme: {} })
    expect(html).toContain('style="--provider-bg:hsl(200, 50%, 40%)"')
  })

  it("renders the email form posting `email` to signinUrl, prefilled, without callbackUrl", () => {
    const form = forms(render({ email: "me@example.com", callbackUrl: "/x" }).html)[2]
    expect(form).toContain(`<form action="${origin}/auth/signin/email" method="post">`)
    expect(form).toContain('<input type="hidden" name="csrfToken" value="tok">')
    expect(form).toContain(
      '<input class="field" type="email" name="email" id="input-email-for-email-provider" required' +
        ' placeholder="email@example.com" value="me@example.com">',
    )
    expect(form).toContain('<label class="field-label" for="input-email-for-email-provider">Email</label>')
    expect(form).toContain('<button type="submit" class="button">Sign in with Email</button>')
    expect(form).not.toContain("callbackUrl")
  })

  it("renders the credentials form posting one input per key to callbackUrl", () => {
    const form = forms(render().html)[3]
    expect(form).toContain(`<form action="${origin}/auth/callback/credentials" method="post">`)
    expect(form).toContain('<input type="hidden" name="csrfToken" value="tok">')
    expect(form).toContain('<label class="field-label" for="input-username-for-credentials-provider">Username</label>')
    expect(form).toContain(
      '<input class="field" name="username" id="input-username-for-credentials-provider" type="text" required>',
    )
    expect(form).toContain(
      '<input class="field" name="password" id="input-password-for-credentials-provider" type="password" required>',
    )
    expect(form).toContain("Sign in with Credentials</button>")
    expect(form).not.toContain("callbackUrl")
  })

  it("labels a credential with its key when it has no label", () => {
    const p = provider("c", "credentials", { credentials: { otp: { type: "text", inputmode: "numeric" } } })
    const { html } = renderSignInPage({ providers: [p], csrfToken: "t", theme: {} })
    expect(html).toContain('<label class="field-label" for="input-otp-for-c-provider">otp</label>')
    expect(html).toContain('type="text" inputmode="numeric" required>')
  })

  it("credential inputs are required unless the provider says required: false", () => {
    const p = provider("c", "credentials", { credentials: { code: { label: "Code", required: false } } })
    const { html } = renderSignInPage({ providers: [p], csrfToken: "t", theme: {} })
    expect(html).toContain('id="input-code-for-c-provider" type="text">')
    expect(html).not.toContain(" required>")
  })

  it("separates the button group from forms, and forms from each other, with <hr>", () => {
    const { html } = render()
    const sequence = html.match(/<hr>|<div class="provider">/g)
    expect(sequence).toEqual([
      '<div class="provider">',
      '<div class="provider">',
      "<hr>",
      '<div class="provider">',
      "<hr>",
      '<div class="provider">',
    ])
  })

  it("skips credentials without inputs and webauthn providers; no <hr> without forms", () => {
    const bare = provider("bare", "credentials")
    const passkey = provider("passkey", "webauthn", { formFields: { email: { label: "Email" } } })
    const { html } = renderSignInPage({ providers: [github, bare, passkey, google], csrfToken: "t", theme: {} })
    expect(forms(html)).toHaveLength(2)
    expect(html).not.toContain("<hr>")
    expect(html).not.toContain("bare")
    expect(html).not.toContain("passkey")
  })

  it("renders no error box without an error", () => {
    expect(render().html).not.toContain('class="error"')
    expect(render({ error: "" }).html).not.toContain('class="error"')
  })
})

describe("renderSignInPage: error messages", () => {
  const different = "Try signing in with a different account."
  it.each([
    ["OAuthCallbackError", different],
    ["Signin", different],
    ["OAuthSignin", different],
    ["OAuthCreateAccount", different],
    ["EmailCreateAccount", different],
    ["Callback", different],
    ["OAuthAccountNotLinked", "To confirm your identity, sign in with the same account you used originally."],
    ["EmailSignin", "The e-mail could not be sent."],
    ["CredentialsSignin", "Sign in failed. Check the details you provided are correct."],
    ["SessionRequired", "Please sign in to access this page."],
    ["MissingCSRF", "The sign in form expired or could not be verified. Please try again."],
    ["Default", "Unable to sign in."],
    ["toString", "Unable to sign in."],
    ["__proto__", "Unable to sign in."],
    ["anything", "Unable to sign in."],
  ])("%s -> %s", (error, message) => {
    expect(signInErrorMessage(error)).toBe(message)
    expect(render({ error }).html).toContain(`<div class="error" role="alert"><p>${message}</p></div>`)
  })
})

describe("renderSignInPage: escaping of request-derived values", () => {
  it("never echoes the error value", () => {
    const { html } = render({ error: hostile })
    expectNoRawPayload(html)
    expect(html).not.toContain(breakoutEscaped)
    expect(html).toContain("<p>Unable to sign in.</p>")
  })

  it("escapes csrfToken, callbackUrl and email", () => {
    const { html } = render({ csrfToken: hostile, callbackUrl: hostile, email: hostile })
    expectNoRawPayload(html)
    expect(html).toContain(`name="csrfToken" value="${hostileEscaped}"`)
    expect(html).toContain(`name="callbackUrl" value="${hostileEscaped}"`)
    expect(html).toContain(`placeholder="email@example.com" value="${hostileEscaped}"`)
  })

  it("escapes provider names, ids and URLs", () => {
    const providers = (["oauth", "email", "credentials"] as const).map((type) =>
      provider(`${type}${hostile}`, type, {
        name: hostile,
        signinUrl: `${origin}/auth/signin/${hostile}`,
        callbackUrl: `${origin}/auth/callback/${hostile}`,
        credentials: { user: { label: "User" } },
      }),
    )
    const { html } = renderSignInPage({ providers, csrfToken: "t", theme: {} })
    expectNoRawPayload(html)
    expect(html).toContain(`<span>Sign in with ${hostileEscaped}</span>`)
    expect(html).toContain(`>Sign in with ${hostileEscaped}</button>`)
    expect(html).toContain(`action="${origin}/auth/signin/${hostileEscaped}"`)
    expect(html).toContain(`action="${origin}/auth/callback/${hostileEscaped}"`)
    expect(html).toContain(`id="input-email-for-email${hostileEscaped}-provider"`)
    expect(html).toContain(`id="input-user-for-credentials${hostileEscaped}-provider"`)
  })

  it("escapes credential keys, labels, types and attribute values", () => {
    const p = provider("c", "credentials", {
      credentials: {
        [hostile]: { label: hostile, type: hostile, placeholder: hostile, pattern: handler, value: hostile },
      },
    })
    const { html } = renderSignInPage({ providers: [p], csrfToken: "t", theme: {} })
    expectNoRawPayload(html)
    expect(html).toContain(`>${hostileEscaped}</label>`)
    expect(html).toContain(`name="${hostileEscaped}"`)
    expect(html).toContain(`type="${hostileEscaped}"`)
    expect(html).toContain(`placeholder="${hostileEscaped}"`)
    expect(html).toContain(`pattern="${handlerEscaped}"`)
    expect(html).toContain(`value="${hostileEscaped}"`)
  })

  it("drops hostile or reserved credential attribute names and non-scalar values", () => {
    const p = provider("c", "credentials", {
      credentials: {
        pin: {
          label: "PIN",
          onclick: "alert(1)",
          OnFocus: "alert(1)",
          "on-x": "1",
          [`x" onload="alert(1)`]: "1",
          "a=b": "1",
          "data x": "1",
          "1abc": "1",
          formaction: "https://evil.example/steal",
          FormAction: "https://evil.example/steal",
          name: "other",
          id: "other",
          Type: "hidden",
          autocomplete: "one-time-code",
          "data-kind": "pin",
          maxlength: 6,
          disabled: false,
          hidden: null,
          object: { toString: () => "x" },
          fn: () => "x",
          required: true,
        },
      },
    })
    const { html } = renderSignInPage({ providers: [p], csrfToken: "t", theme: {} })
    expect(html).toContain(
      '<input class="field" name="pin" id="input-pin-for-c-provider" type="text"' +
        ' autocomplete="one-time-code" data-kind="pin" maxlength="6" required>',
    )
    expect(html).not.toMatch(/\son[a-z-]*=/i)
    expect(html).not.toContain("evil.example")
    expect(html).not.toContain("onload")
    expect(html).not.toContain('name="other"')
    expect(html).not.toMatch(/<input class="field"[^>]*hidden/)
  })

  it("ignores provider colours that try to inject CSS and unsafe logo URLs", () => {
    const p = provider("x", "oauth", {
      style: { brandColor: `red;background:url(https://evil.example/t)`, text: hostile, logo: "javascript:alert(1)" },
    })
    const { html } = renderSignInPage({ providers: [p], csrfToken: "t", theme: {} })
    expectNoRawPayload(html)
    expect(html).not.toContain("evil.example")
    expect(html).toContain('<button type="submit" class="button provider-button"><svg class="provider-mark"')
    expect(html).not.toContain("javascript:")
    expect(html).not.toContain("<img")
  })

  it("escapes a provider logo URL", () => {
    const p = provider("x", "oauth", { style: { logo: `https://cdn.example/${hostile}` } })
    const { html } = renderSignInPage({ providers: [p], csrfToken: "t", theme: {} })
    expectNoRawPayload(html)
    expect(html).toContain(`src="https://cdn.example/${hostileEscaped}"`)
  })

  it("neutralises a javascript: form action", () => {
    const p = provider("x", "oauth", { signinUrl: "javascript:alert(1)" })
    const { html } = renderSignInPage({ providers: [p], csrfToken: "t", theme: {} })
    expect(html).toContain('<form action="#" method="post">')
  })
})

// The built-in sign-in page with a passkey provider (B15): no third-party script, every inline script carries the
// response's CSP nonce, a fresh nonce per response, and the form the inline client drives.
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import { Client, passkeyConfig, RP_ORIGIN } from "./harness"
import { credentialsConfig, makeRequest } from "../helpers"
import { Auth } from "../../../lib/core"

async function signInPage() {
  const { config } = passkeyConfig(MemoryAdapter())
  const response = await new Client(config).request("/auth/signin?email=ada%40example.com")
  return { response, html: await response.text() }
}

describe("the sign-in page with a passkey provider (B15)", () => {
  it("loads no script from elsewhere; every inline script carries the CSP nonce of this response", async () => {
    const { response, html } = await signInPage()
    expect(response.status).toBe(200)
    const csp = response.headers.get("content-security-policy") ?? ""
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1]
    expect(nonce).toBeDefined()
    expect(csp).toContain("connect-src 'self'")
    expect(csp).not.toMatch(/unsafe-inline'[^;]*;?\s*script-src|script-src[^;]*unsafe/)
    expect(html).not.toMatch(/<script[^>]+src=/i)
    const scripts = [...html.matchAll(/<script([^>]*)>/gi)]
    expect(scripts.length).toBeGreaterThan(0)
    for (const [, attributes] of scripts) expect(attributes).toBe(` nonce="${nonce}"`)
    expect(html).not.toContain("unpkg.com")
  })

  it("a new nonce per response", async () => {
    const first = (await signInPage()).response.headers.get("content-security-policy")
    const second = (await signInPage()).response.headers.get("content-security-policy")
    expect(first).not.toBe(second)
  })

  it("renders the passkey form: options URL, conditional UI, autocomplete username webauthn, hidden action and data", async () => {
    const { html } = await signInPage()
    expect(html).toContain(`action="${RP_ORIGIN}/auth/callback/passkey"`)
    expect(html).toContain(`data-webauthn-options="${RP_ORIGIN}/auth/webauthn-options/passkey"`)
    expect(html).toContain('data-conditional="true"')
    expect(html).toMatch(/<input[^>]+name="email"[^>]+autocomplete="username webauthn"/)
    expect(html).toContain('value="ada@example.com"')
    expect(html).toContain('<input type="hidden" name="action" value="">')
    expect(html).toContain('<input type="hidden" name="data" value="">')
    expect(html).toContain("Sign in with Passkey")
  })

  it("a page without a WebAuthn provider keeps the script-free policy", async () => {
    const response = await Auth(makeRequest("/auth/signin"), credentialsConfig())
    expect(response.headers.get("content-security-policy")).not.toContain("script-src")
    expect(await response.text()).not.toContain("<script")
  })
})

import { Auth } from "../../../lib/core"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import Email from "../../../lib/providers/email"
import { ORIGIN, credentialsConfig, makeRequest } from "../helpers"

const payload = `"><script>alert(1)</script>`

describe("page actions", () => {
  it("GET /signin renders the built-in page with the credentials form and CSRF token", async () => {
    const response = await Auth(makeRequest("/auth/signin"), credentialsConfig())
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/html")
    const html = await response.text()
    expect(html).toContain("<title>Sign In</title>")
    expect(html).toContain(`action="${ORIGIN}/auth/callback/credentials"`)
    expect(html).toMatch(/name="csrfToken" value="[0-9a-f]{64}"/)
    expect(html).toContain('name="username"')
    expect(html).toContain('name="password"')
  })

  it("request values are escaped on the sign-in page", async () => {
    const q = new URLSearchParams({ error: payload, email: payload, callbackUrl: `/x${payload}` })
    const response = await Auth(makeRequest(`/auth/signin?${q}`), credentialsConfig())
    const html = await response.text()
    expect(html).not.toContain("<script>alert(1)</script>")
    expect(html).toContain("Unable to sign in.")
  })

  it("GET /signin with pages.signIn redirects with callbackUrl and error", async () => {
    const response = await Auth(
      makeRequest("/auth/signin?error=OAuthSignin&callbackUrl=%2Fafter"),
      credentialsConfig({ pages: { signIn: "/login" } }),
    )
    expect(response.headers.get("location")).toBe(
      `/login?callbackUrl=${encodeURIComponent(`${ORIGIN}/after`)}&error=OAuthSignin`,
    )
  })

  it.each([
    ["Configuration", 500, "Server error"],
    ["AccessDenied", 403, "Access Denied"],
    ["Verification", 403, "Unable to sign in"],
    ["Other", 200, "Error"],
  ])("GET /error?error=%s → %i", async (error, status, text) => {
    const response = await Auth(makeRequest(`/auth/error?error=${error}`), credentialsConfig())
    expect(response.status).toBe(status)
    expect(await response.text()).toContain(text)
  })

  it("GET /error with pages.error: the error is encoded, and omitted when absent (no error=undefined)", async () => {
    const config = credentialsConfig({ pages: { error: "/oops" } })
    const a = await Auth(makeRequest(`/auth/error?error=${encodeURIComponent("a&b=<c>")}`), config)
    expect(a.headers.get("location")).toBe("/oops?error=a%26b%3D%3Cc%3E")
    const b = await Auth(makeRequest("/auth/error"), config)
    expect(b.headers.get("location")).toBe("/oops")
  })

  it("GET /verify-request: the page, or the custom page keeping the query", async () => {
    const page = await Auth(makeRequest("/auth/verify-request"), credentialsConfig())
    expect(await page.text()).toContain("Check your email")
    const custom = await Auth(
      makeRequest("/auth/verify-request?provider=email&type=email"),
      credentialsConfig({ pages: { verifyRequest: "/check" } }),
    )
    expect(custom.headers.get("location")).toBe("/check?provider=email&type=email")
  })

  it("GET /verify-request names the lifetime of the email provider's links", async () => {
    const base = credentialsConfig({ adapter: MemoryAdapter() })
    const email = Email({ sendVerificationRequest: () => undefined, maxAge: 15 * 60 })
    const config = { ...base, providers: [...base.providers, email] }
    const page = await Auth(makeRequest("/auth/verify-request?provider=email&type=email"), config)
    expect(await page.text()).toContain("<p>The link is valid for 15 minutes and works once.</p>")
    const unknown = await Auth(makeRequest("/auth/verify-request?provider=credentials&type=email"), config)
    expect(await unknown.text()).not.toContain("valid for")
  })

  it("the error page escapes an HTML payload in the error code", async () => {
    const response = await Auth(makeRequest(`/auth/error?error=${encodeURIComponent(payload)}`), credentialsConfig())
    expect(await response.text()).not.toContain("<script>alert(1)</script>")
  })
})

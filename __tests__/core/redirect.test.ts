import { Auth } from "../../lib/core"
import { isValidCallbackUrl, sameOriginRedirect } from "../../lib/core/kernel/redirect"
import { ORIGIN, credentialsConfig, csrf, makeRequest } from "./helpers"

// RD-xx corpus (security-checklist 3.7), GHSA-f9wg (prefix match), GHSA-vp58 (backslashes), CVE-2022-31093 (throws).
const hostile = [
  "https://evil.example",
  "https://evil.example/path",
  "http://evil.example",
  "//evil.example",
  "///evil.example",
  "////evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "/\\/\\/evil.example",
  "/%5C/evil.example",
  "/%2F%2Fevil.example",
  "https:evil.example",
  "http:evil.example",
  "https:/evil.example",
  "https://app.example.evil.example",
  "https://app.example@evil.example",
  "https://app.example%40evil.example",
  "https://evil.example#@app.example",
  "javascript:alert(1)",
  "JavaScript:alert(1)",
  "java\tscript:alert(1)",
  "java\nscript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  " //evil.example",
  "\t//evil.example",
  "\n//evil.example",
  "%2F%2Fevil.example",
  "%252F%252Fevil.example",
  "https://evil。example",
  "https://evil%E3%80%82example",
  "http://[::1",
  "https://",
  "",
  "\u0000//evil.example",
  "/\t/evil.example",
]

function sameOrigin(location: string | null): boolean {
  if (location === null) return false
  return new URL(location, ORIGIN).origin === ORIGIN
}

describe("default redirect callback: same-origin only (RD corpus)", () => {
  it.each(hostile)("sameOriginRedirect(%j) stays on the origin", (url) => {
    const result = sameOriginRedirect(url, ORIGIN)
    expect(new URL(result).origin).toBe(ORIGIN)
  })

  it("keeps same-origin paths and absolute URLs", () => {
    expect(sameOriginRedirect("/dashboard?x=1#y", ORIGIN)).toBe(`${ORIGIN}/dashboard?x=1#y`)
    expect(sameOriginRedirect(`${ORIGIN}/a`, ORIGIN)).toBe(`${ORIGIN}/a`)
    expect(sameOriginRedirect("https://evil.example", ORIGIN)).toBe(ORIGIN)
  })

  it("answers each pair on its own when calls alternate (the last answer kept is that of the same pair only)", () => {
    const other = "https://other.example"
    for (let i = 0; i < 2; i++) {
      expect(sameOriginRedirect(`${ORIGIN}/a`, ORIGIN)).toBe(`${ORIGIN}/a`)
      expect(sameOriginRedirect(`${ORIGIN}/a`, other)).toBe(other)
      expect(sameOriginRedirect("/a", other)).toBe(`${other}/a`)
      expect(sameOriginRedirect("/a", ORIGIN)).toBe(`${ORIGIN}/a`)
      expect(isValidCallbackUrl("/a", ORIGIN)).toBe(true)
      expect(isValidCallbackUrl("a", ORIGIN)).toBe(false)
      expect(isValidCallbackUrl("/a", "not an origin")).toBe(false)
    }
  })

  it.each(hostile)("POST /signout with callbackUrl %j never leaves the origin", async (url) => {
    const config = credentialsConfig()
    const pair = await csrf(config)
    const response = await Auth(
      makeRequest("/auth/signout", { cookies: pair.cookies, body: { csrfToken: pair.token, callbackUrl: url } }),
      config,
    )
    expect(response.status).toBe(302)
    expect(sameOrigin(response.headers.get("location"))).toBe(true)
  })

  it.each(hostile)("GET /signin?callbackUrl=%j never redirects off-site nor throws", async (url) => {
    const config = credentialsConfig({ pages: { signIn: "/login" } })
    const response = await Auth(makeRequest(`/auth/signin?callbackUrl=${encodeURIComponent(url)}`), config)
    // 400 for an explicit callbackUrl that is not a path or an http(s) URL (RD-12), never 500.
    expect([200, 302, 400]).toContain(response.status)
    const location = response.headers.get("location")
    if (location) {
      expect(location.startsWith("/login?")).toBe(true)
      const callbackUrl = new URLSearchParams(location.split("?")[1]).get("callbackUrl")!
      expect(new URL(callbackUrl).origin).toBe(ORIGIN)
    }
  })

  it("a hostile callback-url cookie is mapped to the origin too", async () => {
    const config = credentialsConfig()
    const pair = await csrf(config)
    const response = await Auth(
      makeRequest("/auth/signout", {
        cookies: { ...pair.cookies, "__Secure-authjs.callback-url": "https://evil.example" },
        body: { csrfToken: pair.token },
      }),
      config,
    )
    expect(response.headers.get("location")).toBe(ORIGIN)
  })
})

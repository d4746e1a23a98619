import { Auth, isAuthAction } from "../../lib/core"
import { parseActionAndProviderId } from "../../lib/core/request"
import { ORIGIN, credentialsConfig, makeRequest } from "./helpers"

describe("action parsing (reference 18.16)", () => {
  it.each([
    ["/auth/signin", { action: "signin" }],
    ["/auth/signin/github", { action: "signin", providerId: "github" }],
    ["/auth/signin/auth0///", { action: "signin", providerId: "auth0" }],
    ["/auth/callback/credentials", { action: "callback", providerId: "credentials" }],
    ["/auth/session/", { action: "session" }],
    ["/auth/signin/undefined", { action: "signin" }],
    ["/auth/webauthn-options/passkey", { action: "webauthn-options", providerId: "passkey" }],
  ])("accepts %s", (path, expected) => {
    expect(parseActionAndProviderId(path, "/auth")).toEqual(expected)
  })

  it.each([
    "/auth",
    "/auth/",
    "/authsignin",
    "/api/auth/signin",
    "/auth/auth/signin",
    "/auth/unknown",
    "/auth/signin/github/extra",
    "/auth/session/github",
    "/auth/providers/x",
  ])("rejects %s", (path) => {
    expect(parseActionAndProviderId(path, "/auth")).toBeNull()
  })

  it("a root base path gives /signin, not //signin", () => {
    expect(parseActionAndProviderId("/signin", "")).toEqual({ action: "signin" })
    expect(parseActionAndProviderId("//signin", "")).toBeNull()
  })

  it("isAuthAction knows exactly the nine actions", () => {
    expect(isAuthAction("signin")).toBe(true)
    expect(isAuthAction("webauthn-options")).toBe(true)
    expect(isAuthAction("sign-in")).toBe(false)
  })
})

describe("Auth() routing", () => {
  it.each(["PUT", "DELETE", "PATCH"])('%s → 400 "Bad request."', async (method) => {
    const response = await Auth(makeRequest("/auth/session", { method }), credentialsConfig())
    expect(response.status).toBe(400)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(await response.json()).toBe("Bad request.")
  })

  it.each(["/auth/nope", "/authsession", "/auth/signin/a/b", "/elsewhere"])("%s → 400", async (path) => {
    const response = await Auth(makeRequest(path), credentialsConfig())
    expect(response.status).toBe(400)
  })

  it("malformed JSON body → 400, no cookies", async () => {
    const response = await Auth(
      makeRequest("/auth/signout", { body: "{not json", headers: { "content-type": "application/json" } }),
      credentialsConfig(),
    )
    expect(response.status).toBe(400)
    expect(response.headers.getSetCookie()).toEqual([])
  })

  it("a body over 1 MB → 400, nothing read further, no cookies", async () => {
    const response = await Auth(
      makeRequest("/auth/callback/credentials", { body: { username: "x".repeat(1024 * 1024 + 1) } }),
      credentialsConfig(),
    )
    expect(response.status).toBe(400)
    expect(response.headers.getSetCookie()).toEqual([])
  })

  it.each(["providers", "csrf", "error", "verify-request"])("POST /%s → Configuration redirect", async (action) => {
    const response = await Auth(makeRequest(`/auth/${action}`, { method: "POST" }), credentialsConfig())
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
  })

  it("unknown provider on /callback → Configuration redirect (reference 18.6)", async () => {
    const response = await Auth(makeRequest("/auth/callback/nope"), credentialsConfig())
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
  })

  it("pages.error is honoured for error redirects (reference 18.8)", async () => {
    const response = await Auth(
      makeRequest("/auth/callback/credentials"),
      credentialsConfig({ pages: { error: "/custom/error" } }),
    )
    expect(response.headers.get("location")).toBe(`${ORIGIN}/custom/error?error=Configuration`)
  })

  it("GET /signin/:provider is unsupported → Configuration", async () => {
    const response = await Auth(makeRequest("/auth/signin/credentials"), credentialsConfig())
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
  })

  it("a custom base path, and a root base path", async () => {
    const a = await Auth(makeRequest("/api/auth/providers"), credentialsConfig({ basePath: "/api/auth" }))
    expect(((await a.json()) as Record<string, { signinUrl: string }>).credentials.signinUrl).toBe(
      `${ORIGIN}/api/auth/signin/credentials`,
    )
    const b = await Auth(makeRequest("/providers"), credentialsConfig({ basePath: "/" }))
    expect(((await b.json()) as Record<string, { callbackUrl: string }>).credentials.callbackUrl).toBe(
      `${ORIGIN}/callback/credentials`,
    )
  })

  it("GET /providers lists providers and sets no cookies", async () => {
    const response = await Auth(makeRequest("/auth/providers"), credentialsConfig())
    expect(response.headers.getSetCookie()).toEqual([])
    expect(response.headers.get("cache-control")).toBeNull()
    expect(await response.json()).toEqual({
      credentials: {
        id: "credentials",
        name: "Credentials",
        type: "credentials",
        signinUrl: `${ORIGIN}/auth/signin/credentials`,
        callbackUrl: `${ORIGIN}/auth/callback/credentials`,
      },
    })
  })

  it("POST /signin without a provider → 302 to the sign-in page (CSRF checked)", async () => {
    const config = credentialsConfig()
    const bad = await Auth(makeRequest("/auth/signin", { method: "POST", body: {} }), config)
    expect(bad.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
  })
})

import { Auth, isAuthAction } from "../../lib/core"
import { parseActionAndProviderId } from "../../lib/core/kernel/request"
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

  it("a browser opening an unknown auth route gets an HTML 400 page with a way to sign in; scripts keep the JSON", async () => {
    const browser = await Auth(
      makeRequest("/auth/foo", { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } }),
      credentialsConfig(),
    )
    expect(browser.status).toBe(400)
    expect(browser.headers.get("content-type")).toMatch(/^text\/html/)
    const html = await browser.text()
    expect(html).toContain("<h1>Page not found</h1>")
    expect(html).toContain(`href="${ORIGIN}/auth/signin"`)
    const script = await Auth(
      makeRequest("/auth/foo", { headers: { accept: "application/json" } }),
      credentialsConfig(),
    )
    expect({ status: script.status, body: await script.json() }).toEqual({ status: 400, body: "Bad request." })
    // An unreadable request that is not an unknown route stays JSON for a browser too.
    const put = await Auth(
      makeRequest("/auth/session", { method: "PUT", headers: { accept: "text/html" } }),
      credentialsConfig(),
    )
    expect(put.headers.get("content-type")).toBe("application/json")
  })

  it("malformed JSON body → 400, no cookies", async () => {
    const response = await Auth(
      makeRequest("/auth/signout", { body: "{not json", headers: { "content-type": "application/json" } }),
      credentialsConfig(),
    )
    expect(response.status).toBe(400)
    expect(response.headers.getSetCookie()).toEqual([])
  })

  it("malformed JSON body → the logged error is InvalidRequest (code invalid_request)", async () => {
    const config = credentialsConfig()
    const response = await Auth(
      makeRequest("/auth/signout", { body: "[1,2]", headers: { "content-type": "application/json" } }),
      config,
    )
    expect(response.status).toBe(400)
    expect(config.logger.errors.map((e) => [e.name, (e as { code?: string }).code])).toEqual([
      ["InvalidRequest", "invalid_request"],
    ])
  })

  it("a body over 1 MB (declared) → 400 InvalidRequest, no cookies", async () => {
    const config = credentialsConfig()
    const response = await Auth(
      makeRequest("/auth/callback/credentials", { body: { username: "x".repeat(1024 * 1024 + 1) } }),
      config,
    )
    expect(response.status).toBe(400)
    expect(response.headers.getSetCookie()).toEqual([])
    expect(config.logger.errors.map((e) => (e as { code?: string }).code)).toEqual(["invalid_request"])
  })

  it("a chunked body without Content-Length over 1 MB → 400 after ~1 MB is read, the rest never pulled", async () => {
    const chunk = new TextEncoder().encode(`username=${"x".repeat(64 * 1024 - 9)}`)
    const total = 160 // 10 MB on offer
    let pulled = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled === total) return controller.close()
        pulled += 1
        controller.enqueue(chunk)
      },
    })
    const request = new Request(`${ORIGIN}/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: stream,
      duplex: "half",
    } as RequestInit)
    expect(request.headers.get("content-length")).toBeNull()
    const config = credentialsConfig()
    const response = await Auth(request, config)
    expect(response.status).toBe(400)
    expect(response.headers.getSetCookie()).toEqual([])
    expect(config.logger.errors.map((e) => (e as { code?: string }).code)).toEqual(["invalid_request"])
    // 17 chunks pass the 1 MB limit; the stream may buffer a chunk or two ahead, never the 10 MB.
    expect(pulled).toBeGreaterThanOrEqual(17)
    expect(pulled).toBeLessThan(20)
  })

  it("a chunked body under the limit is read whole", async () => {
    const parts = ["username=ada", "&password=", "pw"].map((p) => new TextEncoder().encode(p))
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = parts.shift()
        if (next) controller.enqueue(next)
        else controller.close()
      },
    })
    const csrf = await Auth(makeRequest("/auth/csrf"), credentialsConfig())
    expect(csrf.status).toBe(200)
    const request = new Request(`${ORIGIN}/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: stream,
      duplex: "half",
    } as RequestInit)
    const config = credentialsConfig()
    const response = await Auth(request, config)
    // Read and parsed: the credentials callback answers (MissingCSRF: the body carries no token), not a 400.
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
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

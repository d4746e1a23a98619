// The route table carries the policy and the router enforces it: methods, provider types, CSRF, error answers.
import { Auth } from "../../lib/core"
import { authActions, providerActions } from "../../lib/core/kernel/routes"
import { routes } from "../../lib/core/kernel/routes"
import { AuthError } from "../../lib/errors"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import Email from "../../lib/providers/email"
import { ORIGIN, credentialsConfig, csrf, makeRequest, signIn } from "./helpers"

describe("the route table", () => {
  it("lists the nine actions of the reference and derives the provider actions from the table", () => {
    expect(authActions).toEqual([
      "providers",
      "session",
      "csrf",
      "signin",
      "signout",
      "callback",
      "verify-request",
      "error",
      "webauthn-options",
    ])
    // The opt-in rows (`passkeys/<rename|delete>`, `sessions/revoke`) and the OIDC logout routes are not among the
    // nine, but they take a second segment.
    expect([...providerActions].sort()).toEqual([
      "account",
      "admin",
      "backchannel-logout",
      "callback",
      "passkeys",
      "sessions",
      "signin",
      "signout-callback",
      "webauthn-options",
    ])
  })

  // Every POST that changes state is covered by the table's CSRF rule: a new row cannot forget it.
  const postRows = authActions.filter((a) => (routes[a].methods as readonly string[]).includes("POST"))
  it.each(postRows)("POST /%s without a CSRF token changes nothing and sets no session", async (action) => {
    const config = credentialsConfig()
    const cookies = await signIn(config)
    const path = action === "callback" ? "/auth/callback/credentials" : `/auth/${action}`
    const response = await Auth(
      makeRequest(path, { cookies, body: { username: "ada", password: "pw", data: { name: "Eve" } } }),
      config,
    )
    const setCookie = response.headers.getSetCookie()
    expect(setCookie.filter((c) => c.startsWith("__Secure-authjs.session-token="))).toEqual([])
    if (action === "session") {
      expect(response.status).toBe(400)
      expect(await response.json()).toBeNull()
    } else {
      expect(response.status).toBe(302)
      expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    }
    expect(config.logger.errors.map((e) => e.name)).toEqual(["MissingCSRF"])
  })

  it("a provider type the row does not accept is refused before the handler runs (webauthn-options/email)", async () => {
    const config = credentialsConfig({
      adapter: MemoryAdapter(),
      session: { strategy: "jwt" },
      providers: [Email({ sendVerificationRequest: async () => undefined })],
    })
    const response = await Auth(makeRequest("/auth/webauthn-options/email"), config)
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(config.logger.errors.map((e) => e.name)).toEqual(["InvalidProvider"])
  })

  it("a method the provider type does not take is refused before the handler runs (GET /callback/credentials)", async () => {
    const authorize = jest.fn(async () => null)
    const config = credentialsConfig()
    ;(config.providers[0] as { authorize: unknown }).authorize = authorize
    const response = await Auth(makeRequest("/auth/callback/credentials?username=ada&password=pw"), config)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(config.logger.errors.map((e) => e.name)).toEqual(["InvalidProvider"])
    expect(authorize).not.toHaveBeenCalled()
  })

  it("POST /backchannel-logout is a row with its own JSON errors: no provider, an unknown one, or GET → 400 invalid_request", async () => {
    const config = credentialsConfig()
    const form = { "content-type": "application/x-www-form-urlencoded" }
    const answers = [
      await Auth(makeRequest("/auth/backchannel-logout", { headers: form, body: "logout_token=x" }), config),
      await Auth(makeRequest("/auth/backchannel-logout/nope", { headers: form, body: "logout_token=x" }), config),
      await Auth(makeRequest("/auth/backchannel-logout/credentials"), config),
    ]
    for (const response of answers) {
      expect(response.status).toBe(400)
      expect(response.headers.get("cache-control")).toBe("no-store")
      expect(response.headers.getSetCookie()).toEqual([])
      const body = (await response.json()) as { error: string; error_description: string }
      expect(body.error).toBe("invalid_request")
      // The type only: the message of an unknown provider lists the configured ids.
      expect(body.error_description).not.toContain("credentials")
    }
    expect(config.logger.errors.map((e) => e.name)).toEqual(["InvalidProvider", "InvalidProvider", "UnknownAction"])
  })

  it("an AuthError's status and headers shape the answer of a JSON route (429 + Retry-After)", async () => {
    const config = credentialsConfig({
      callbacks: {
        redirect: () => {
          throw new AuthError("Too many updates", { status: 429, headers: { "Retry-After": "30" } })
        },
      },
    })
    const { token, cookies } = await csrf(config)
    const response = await Auth(
      makeRequest("/auth/session", { cookies, body: { csrfToken: token, callbackUrl: "/x" } }),
      config,
    )
    expect(response.status).toBe(429)
    expect(response.headers.get("retry-after")).toBe("30")
    expect(await response.json()).toBeNull()
    // A page route redirects whatever the status (browsers follow redirects, not 429s).
    const page = await Auth(makeRequest("/auth/signin?callbackUrl=/x"), config)
    expect(page.status).toBe(302)
  })
})

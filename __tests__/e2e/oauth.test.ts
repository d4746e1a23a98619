// End to end: Auth() + a real oidc-provider. csrf → POST /signin/:id → OP login/consent → /callback/:id → /session.
import { Auth } from "../../lib/core"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { decode } from "../../lib/jwt"
import { stableUserId } from "../../lib/oauth"
import type { OAuthConfig } from "../../lib/providers/types"
import {
  driveAuthorization,
  startOidcProvider,
  testOidcProvider,
  type StartedOidcProvider,
} from "../fixtures/oauth/oidc-provider"

const APP = "http://app.test"
const SECRET = "e2e-secret-0123456789abcdef0123456789abcdef"
let op: StartedOidcProvider
let config: AuthConfig

function oidc(id: string, extra: Partial<OAuthConfig> = {}): OAuthConfig {
  return testOidcProvider(op, id, extra)
}

beforeAll(async () => {
  op = await startOidcProvider({
    redirectUris: ["op", "op-b", "op-fp"].map((id) => `${APP}/auth/callback/${id}`),
  })
  config = {
    secret: SECRET,
    trustHost: true,
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [
      oidc("op", { checks: ["pkce", "state", "nonce"] }),
      oidc("op-b", { checks: ["pkce", "state", "nonce"] }),
      oidc("op-fp", { checks: ["pkce", "state", "nonce"], authorization: { params: { response_mode: "form_post" } } }),
    ],
  }
})
afterAll(async () => op.close())

/** A browser at the app: keeps cookies from Set-Cookie headers. */
class AppBrowser {
  cookies = new Map<string, string>()
  async request(path: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers = new Headers()
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "))
    let body: string | undefined
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(init.form).toString()
    }
    const response = await Auth(new Request(`${APP}${path}`, { method: init.method ?? "GET", headers, body }), config)
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const eq = pair.indexOf("=")
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      if (/Max-Age=0/i.test(line) || value === "") this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return response
  }
  async startSignIn(providerId: string): Promise<string> {
    const csrf = (await (await this.request("/auth/csrf")).json()) as { csrfToken: string }
    const response = await this.request(`/auth/signin/${providerId}`, {
      method: "POST",
      form: { csrfToken: csrf.csrfToken, callbackUrl: `${APP}/dashboard` },
    })
    expect(response.status).toBe(302)
    return response.headers.get("location") as string
  }
}

async function fullSignIn(browser: AppBrowser, providerId: string, login = "alice"): Promise<Response> {
  const authorizationUrl = await browser.startSignIn(providerId)
  const delivery = await driveAuthorization(authorizationUrl, `${APP}/auth/callback/`, { login })
  return delivery.method === "GET"
    ? browser.request(`${delivery.url.pathname}?${delivery.params}`)
    : browser.request(delivery.url.pathname, { method: "POST", form: Object.fromEntries(delivery.params) })
}

test("oidcc-client-test end to end: session with a stable sub, check cookies cleared", async () => {
  const browser = new AppBrowser()
  const authorizationUrl = new URL(await browser.startSignIn("op"))
  expect(authorizationUrl.origin).toBe(op.issuer)
  expect(authorizationUrl.searchParams.get("redirect_uri")).toBe(`${APP}/auth/callback/op`)
  expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256")
  expect(browser.cookies.has("authjs.state")).toBe(true)
  expect(browser.cookies.has("authjs.nonce")).toBe(true)
  expect(browser.cookies.has("authjs.pkce.code_verifier")).toBe(true)

  const delivery = await driveAuthorization(authorizationUrl.href, `${APP}/auth/callback/`, { login: "alice" })
  const callback = await browser.request(`${delivery.url.pathname}?${delivery.params}`)
  expect(callback.status).toBe(302)
  expect(callback.headers.get("location")).toBe(`${APP}/dashboard`)
  for (const name of ["authjs.state", "authjs.nonce", "authjs.pkce.code_verifier"]) {
    expect(browser.cookies.has(name)).toBe(false)
  }
  const token = await decode({
    token: browser.cookies.get("authjs.session-token"),
    secret: SECRET,
    salt: "authjs.session-token",
  })
  expect(token?.sub).toBe(await stableUserId("op", "alice"))

  const session = (await (await browser.request("/auth/session")).json()) as Record<string, unknown>
  expect(session).toMatchObject({
    user: { name: "User alice", email: "alice@example.test", image: "https://img.example.test/alice.png" },
  })

  // A second sign-in of the same account gets the same sub.
  const second = new AppBrowser()
  await fullSignIn(second, "op", "alice")
  const token2 = await decode({
    token: second.cookies.get("authjs.session-token"),
    secret: SECRET,
    salt: "authjs.session-token",
  })
  expect(token2?.sub).toBe(token?.sub)
})

test("a replayed callback fails with no session", async () => {
  const browser = new AppBrowser()
  const authorizationUrl = await browser.startSignIn("op")
  const delivery = await driveAuthorization(authorizationUrl, `${APP}/auth/callback/`)
  const path = `${delivery.url.pathname}?${delivery.params}`
  await browser.request(path)
  browser.cookies.delete("authjs.session-token")
  const replay = await browser.request(path)
  expect(replay.headers.get("location")).toBe(`${APP}/auth/error?error=Configuration`)
  expect(browser.cookies.has("authjs.session-token")).toBe(false)
})

test("a tampered state cookie fails with no session", async () => {
  const browser = new AppBrowser()
  const authorizationUrl = await browser.startSignIn("op")
  const delivery = await driveAuthorization(authorizationUrl, `${APP}/auth/callback/`)
  browser.cookies.set("authjs.state", `${browser.cookies.get("authjs.state")?.slice(0, -4)}AAAA`)
  const response = await browser.request(`${delivery.url.pathname}?${delivery.params}`)
  expect(response.headers.get("location")).toBe(`${APP}/auth/error?error=Configuration`)
  expect(browser.cookies.has("authjs.session-token")).toBe(false)
})

test("a failed callback still deletes its check cookies (single use whatever the outcome)", async () => {
  const browser = new AppBrowser()
  const authorizationUrl = await browser.startSignIn("op")
  const delivery = await driveAuthorization(authorizationUrl, `${APP}/auth/callback/`)
  browser.cookies.set("authjs.state", `${browser.cookies.get("authjs.state")?.slice(0, -4)}AAAA`)
  const response = await browser.request(`${delivery.url.pathname}?${delivery.params}`)
  expect(response.headers.get("location")).toBe(`${APP}/auth/error?error=Configuration`)
  const deleted = response.headers
    .getSetCookie()
    .filter((line) => /Max-Age=0/i.test(line))
    .map((line) => line.split("=")[0])
  expect(deleted.sort()).toEqual(["authjs.nonce", "authjs.pkce.code_verifier", "authjs.state"])
  expect(response.headers.getSetCookie().filter((line) => !/Max-Age=0/i.test(line))).toEqual([])
  for (const name of ["authjs.state", "authjs.nonce", "authjs.pkce.code_verifier"]) {
    expect(browser.cookies.has(name)).toBe(false)
  }
})

test("a missing PKCE cookie fails with no session", async () => {
  const browser = new AppBrowser()
  const authorizationUrl = await browser.startSignIn("op")
  const delivery = await driveAuthorization(authorizationUrl, `${APP}/auth/callback/`)
  browser.cookies.delete("authjs.pkce.code_verifier")
  const response = await browser.request(`${delivery.url.pathname}?${delivery.params}`)
  expect(response.headers.get("location")).toBe(`${APP}/auth/error?error=Configuration`)
  expect(browser.cookies.has("authjs.session-token")).toBe(false)
})

test("GHSA-x445-f3h2-j279: a callback on provider B with provider A's check cookies fails", async () => {
  const browser = new AppBrowser()
  const authorizationUrl = await browser.startSignIn("op")
  const delivery = await driveAuthorization(authorizationUrl, `${APP}/auth/callback/`)
  const response = await browser.request(`/auth/callback/op-b?${delivery.params}`)
  expect(response.headers.get("location")).toBe(`${APP}/auth/error?error=Configuration`)
  expect(browser.cookies.has("authjs.session-token")).toBe(false)
})

test("error=access_denied from the IdP → sign-in page with OAuthCallbackError", async () => {
  const browser = new AppBrowser()
  const authorizationUrl = await browser.startSignIn("op")
  const delivery = await driveAuthorization(authorizationUrl, `${APP}/auth/callback/`, { abort: true })
  const response = await browser.request(`${delivery.url.pathname}?${delivery.params}`)
  expect(response.headers.get("location")).toBe(`${APP}/auth/signin?error=OAuthCallbackError`)
  expect(browser.cookies.has("authjs.session-token")).toBe(false)
})

test("response_mode=form_post: the callback is a POST and signs in", async () => {
  const browser = new AppBrowser()
  const response = await fullSignIn(browser, "op-fp", "carol")
  expect(response.status).toBe(302)
  expect(response.headers.get("location")).toBe(`${APP}/dashboard`)
  const session = (await (await browser.request("/auth/session")).json()) as { user: { email: string } }
  expect(session.user.email).toBe("carol@example.test")
})

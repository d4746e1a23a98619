// First-hour review row 28 / issue 9: after a rejected credentials sign-in the built-in page refills what was typed,
// never the password. The values travel in a sealed 5-minute cookie read once; the redirect URL stays Auth.js's.
import { Auth } from "../../../lib/core"
import Credentials from "../../../lib/providers/credentials"
import type { AuthConfig } from "../../../lib/core/kernel/types"
import { ORIGIN, SECRET, applyCookies, credentialsConfig, csrf, makeRequest, setCookies } from "../helpers"

const COOKIE = "__Secure-gatehouse.credentials-refill"

async function attempt(config: AuthConfig, body: Record<string, string>) {
  const { token, cookies } = await csrf(config)
  const response = await Auth(
    makeRequest("/auth/callback/credentials", { cookies, body: { csrfToken: token, ...body } }),
    config,
  )
  return { response, cookies: applyCookies(cookies, response) }
}

async function signInPage(config: AuthConfig, cookies: Record<string, string>, query = "?error=CredentialsSignin") {
  const response = await Auth(makeRequest(`/auth/signin${query}`, { method: "GET", cookies }), config)
  expect(response.status).toBe(200)
  return { html: await response.text(), response }
}

describe("the credentials form after a rejected sign-in", () => {
  it("comes back with the username, not the password, once", async () => {
    const config = credentialsConfig()
    const { response, cookies } = await attempt(config, { username: 'ada "the" <b>', password: "hunter2-secret" })
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials`)
    const cookie = setCookies(response).get(COOKIE)!
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: "lax", path: "/", maxAge: 300 })
    expect(cookie.value).not.toContain("ada")
    expect(cookie.value).not.toContain("hunter2")

    const { html, response: page } = await signInPage(config, cookies)
    expect(html).toContain(
      'name="username" id="input-username-for-credentials-provider" type="text" value="ada &quot;the&quot; &lt;b&gt;"',
    )
    expect(html).not.toContain("hunter2")
    expect(html).toMatch(/name="password"[^>]*type="password"(?![^>]*value=)/)
    // read once: the page deletes the cookie
    expect(setCookies(page).get(COOKIE)).toMatchObject({ value: "", maxAge: 0 })
    const again = await signInPage(config, applyCookies(cookies, page))
    expect(again.html).not.toContain('value="ada')
  })

  it("is not refilled without the error, from a forged or expired cookie, or for another provider", async () => {
    const config = credentialsConfig()
    const { cookies } = await attempt(config, { username: "ada", password: "nope" })
    expect((await signInPage(config, cookies, "")).html).not.toContain('value="ada"')

    const forged = { ...cookies, [COOKIE]: "eyJhbGciOiJkaXIifQ..x.y.z" }
    expect((await signInPage(config, forged)).html).not.toContain('value="ada"')

    // sealed for provider "credentials": a provider with another id on another config does not read it
    const other: AuthConfig = {
      ...config,
      providers: [
        Credentials({
          id: "staff",
          credentials: { username: {}, password: { type: "password" } },
          authorize: () => null,
        }),
      ],
    }
    expect((await signInPage(other, cookies)).html).not.toContain('value="ada"')

    jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] })
    try {
      jest.setSystemTime(Date.now() + 301_000)
      expect((await signInPage(config, cookies)).html).not.toContain('value="ada"')
    } finally {
      jest.useRealTimers()
    }
  })

  it("keeps nothing on success, for a password-only form, or for oversized values", async () => {
    const config = credentialsConfig()
    const ok = await attempt(config, { username: "ada", password: "pw" })
    expect(setCookies(ok.response).has(COOKIE)).toBe(false)

    const long = await attempt(config, { username: "a".repeat(257), password: "x" })
    expect(setCookies(long.response).has(COOKIE)).toBe(false)

    const pinOnly: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      providers: [Credentials({ credentials: { pin: { type: "password" } }, authorize: () => null })],
    }
    const pin = await attempt(pinOnly, { pin: "1234" })
    expect(pin.response.headers.get("location")).toContain("error=CredentialsSignin")
    expect(setCookies(pin.response).has(COOKIE)).toBe(false)
  })
})

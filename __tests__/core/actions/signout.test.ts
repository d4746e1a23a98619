import { Auth } from "../../../lib/core"
import { ORIGIN, applyCookies, credentialsConfig, csrf, makeRequest, setCookies, signIn } from "../helpers"

const SALT = "__Secure-authjs.session-token"

describe("/signout", () => {
  it("GET shows the sign-out page posting back to the request URL", async () => {
    const response = await Auth(makeRequest("/auth/signout?callbackUrl=%2Fbye"), credentialsConfig())
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/html")
    const html = await response.text()
    expect(html).toContain("<title>Sign Out</title>")
    expect(html).toContain(`action="${ORIGIN}/auth/signout?callbackUrl=%2Fbye"`)
  })

  it("GET with pages.signOut redirects there exactly", async () => {
    const response = await Auth(makeRequest("/auth/signout"), credentialsConfig({ pages: { signOut: "/bye" } }))
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("/bye")
  })

  it("POST with CSRF clears the session, fires signOut with the token, and redirects to callbackUrl", async () => {
    const events: unknown[] = []
    const config = credentialsConfig({ events: { signOut: (m) => void events.push(m) } })
    const cookies = await signIn(config)
    const pair = await csrf(config)
    const response = await Auth(
      makeRequest("/auth/signout", {
        cookies: { ...cookies, ...pair.cookies },
        body: { csrfToken: pair.token, callbackUrl: "/goodbye" },
      }),
      config,
    )
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/goodbye`)
    expect(setCookies(response).get(SALT)).toMatchObject({ value: "", maxAge: 0 })
    expect(events).toEqual([{ token: expect.objectContaining({ sub: "user-1", name: "Ada Lovelace" }) }])
    const after = await Auth(makeRequest("/auth/session", { cookies: applyCookies(cookies, response) }), config)
    expect(await after.json()).toBeNull()
  })

  it("POST without CSRF → MissingCSRF, the session cookie stays", async () => {
    const config = credentialsConfig()
    const cookies = await signIn(config)
    const response = await Auth(makeRequest("/auth/signout", { cookies, body: { callbackUrl: "/" } }), config)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    expect(response.headers.getSetCookie()).toEqual([])
  })

  it("POST with no session just redirects", async () => {
    const config = credentialsConfig()
    const pair = await csrf(config)
    const response = await Auth(
      makeRequest("/auth/signout", { cookies: pair.cookies, body: { csrfToken: pair.token } }),
      config,
    )
    expect(response.headers.get("location")).toBe(ORIGIN)
  })
})

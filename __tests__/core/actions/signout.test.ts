import { Auth } from "../../../lib/core"
import { ORIGIN, applyCookies, credentialsConfig, csrf, makeRequest, setCookies, signIn } from "../helpers"

const SALT = "__Secure-authjs.session-token"

describe("/signout", () => {
  it("GET shows the sign-out page posting back to the request URL", async () => {
    const config = credentialsConfig()
    const response = await Auth(
      makeRequest("/auth/signout?callbackUrl=%2Fbye", { cookies: await signIn(config) }),
      config,
    )
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/html")
    const html = await response.text()
    expect(html).toContain("<title>Sign Out</title>")
    expect(html).toContain(`action="${ORIGIN}/auth/signout?callbackUrl=%2Fbye"`)
  })

  describe("back to where the user was (issue 9, rows 15-16)", () => {
    const returnTo = async (options: Parameters<typeof makeRequest>[1], path = "/auth/signout") => {
      const config = credentialsConfig()
      const cookies = { ...(await signIn(config)), ...(options?.cookies ?? {}) }
      const html = await (await Auth(makeRequest(path, { ...options, cookies }), config)).text()
      return html.match(/name="callbackUrl" value="([^"]*)"/)?.[1]
    }

    it("returns to the same-origin page the visitor came from, not to a stale callback-url cookie", async () => {
      const target = await returnTo({
        headers: { referer: `${ORIGIN}/account?tab=1` },
        cookies: { "__Secure-authjs.callback-url": `${ORIGIN}/protected` },
      })
      expect(target).toBe(`${ORIGIN}/account?tab=1`)
    })

    it("home when there is no referer, a foreign one, or one of the auth pages", async () => {
      expect(await returnTo({ cookies: { "__Secure-authjs.callback-url": `${ORIGIN}/protected` } })).toBe(ORIGIN)
      expect(await returnTo({ headers: { referer: "https://evil.example/x" } })).toBe(ORIGIN)
      expect(await returnTo({ headers: { referer: `${ORIGIN}/auth/signin` } })).toBe(ORIGIN)
    })

    it("an explicit callbackUrl query wins", async () => {
      expect(await returnTo({ headers: { referer: `${ORIGIN}/a` } }, "/auth/signout?callbackUrl=%2Fbye")).toBe(
        `${ORIGIN}/bye`,
      )
    })

    it("the form's callbackUrl is where the POST lands", async () => {
      const config = credentialsConfig()
      const cookies = { ...(await signIn(config)), "__Secure-authjs.callback-url": `${ORIGIN}/protected` }
      const pair = await csrf(config)
      const response = await Auth(
        makeRequest("/auth/signout", {
          cookies: { ...cookies, ...pair.cookies },
          body: { csrfToken: pair.token, callbackUrl: `${ORIGIN}/account` },
        }),
        config,
      )
      expect(response.headers.get("location")).toBe(`${ORIGIN}/account`)
    })

    it("a visitor without a session is told so, with no sign-out form", async () => {
      const html = await (await Auth(makeRequest("/auth/signout"), credentialsConfig())).text()
      expect(html).toContain("<h1>Sign out</h1><p>You are not signed in.</p>")
      expect(html).not.toContain("<form")
    })
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

// Issue 11: RD-12 / RD-13 (invalid callbackUrl parameter or tossed cookie), HP-06 (methods a Request rejects).
import express from "express"
import request from "supertest"
import { ExpressAuth } from "../../lib"
import { Auth } from "../../lib/core"
import { applyCookies, credentialsConfig, makeRequest, setCookies } from "../core/helpers"

const CALLBACK_COOKIE = "__Secure-authjs.callback-url"

describe("RD-12", () => {
  it.each(["javascript:x", "JavaScript:alert(1)", "data:text/html,x", "a"])(
    "?callbackUrl=%s answers 400 on any auth route, never 500",
    async (value) => {
      const config = credentialsConfig()
      for (const path of ["/auth/signin", "/auth/session", "/auth/csrf", "/auth/providers", "/auth/signout"]) {
        const response = await Auth(makeRequest(`${path}?callbackUrl=${encodeURIComponent(value)}`), config)
        expect(response.status).toBe(400)
        expect(await response.json()).toEqual({ message: "Invalid callbackUrl." })
      }
    },
  )
})

describe("RD-13", () => {
  it("a tossed callback-url cookie is ignored and replaced: every route answers normally", async () => {
    const config = credentialsConfig()
    const cookies = { [CALLBACK_COOKIE]: "javascript:alert(1)" }
    for (const path of ["/auth/signin", "/auth/session", "/auth/csrf", "/auth/providers"]) {
      const response = await Auth(makeRequest(path, { cookies }), config)
      expect(response.status).toBe(200)
      const next = applyCookies(cookies, response)
      expect(next[CALLBACK_COOKIE] ?? "").not.toContain("javascript")
    }
  })

  it("the sign-in with such a cookie redirects to the site, not to the cookie's value", async () => {
    const config = credentialsConfig()
    const csrf = await Auth(makeRequest("/auth/csrf"), config)
    const { csrfToken } = (await csrf.json()) as { csrfToken: string }
    const cookies = { ...applyCookies({}, csrf), [CALLBACK_COOKIE]: "javascript:alert(1)" }
    const response = await Auth(
      makeRequest("/auth/callback/credentials", { cookies, body: { csrfToken, username: "ada", password: "pw" } }),
      config,
    )
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("https://app.example")
    expect(setCookies(response).get(CALLBACK_COOKIE)?.value).toBe("https://app.example")
  })
})

describe("HP-06", () => {
  it.each(["trace"] as const)("%s (a method no Web Request can carry) answers 400/405, never 500", async (verb) => {
    const app = express()
    app.use("/auth", ExpressAuth(credentialsConfig()))
    const agent = request(app) as unknown as Record<string, (path: string) => request.Test>
    const response = await agent[verb]!("/auth/session")
    expect([400, 405]).toContain(response.status)
  })

  it.each(["PUT", "DELETE", "PATCH"])("%s through Auth() answers 400 or 405", async (method) => {
    const response = await Auth(makeRequest("/auth/session", { method }), credentialsConfig())
    expect([400, 405]).toContain(response.status)
  })
})

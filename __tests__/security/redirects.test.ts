// BCP-08 / BCP-09 / ML-7: redirects from the auth routes never leak the URL they come from, and a callback answers
// with a redirect, never a page.
import { Auth } from "../../lib/core"
import { credentialsConfig, csrf, makeRequest } from "../core/helpers"

describe("BCP-08 ML-7 Referrer-Policy on redirects", () => {
  it("a successful credentials callback redirects with Referrer-Policy: no-referrer", async () => {
    const config = credentialsConfig()
    const { token, cookies } = await csrf(config)
    const response = await Auth(
      makeRequest("/auth/callback/credentials", {
        cookies,
        body: { csrfToken: token, username: "ada", password: "pw" },
      }),
      config,
    )
    expect(response.status).toBe(302)
    expect(response.headers.get("referrer-policy")).toBe("no-referrer")
  })

  it("an error redirect also carries it", async () => {
    const response = await Auth(makeRequest("/auth/callback/credentials"), credentialsConfig())
    expect(response.status).toBe(302)
    expect(response.headers.get("referrer-policy")).toBe("no-referrer")
  })

  it("BCP-09: a callback never answers 200 HTML", async () => {
    const config = credentialsConfig()
    for (const path of ["/auth/callback/credentials?code=abc&state=x", "/auth/callback/nope?code=abc"]) {
      const response = await Auth(makeRequest(path), config)
      expect(response.status).toBe(302)
      expect(response.headers.get("content-type")).toBeNull()
    }
  })
})

import { createHash } from "node:crypto"
import { Auth, skipCSRFCheck } from "../../../lib/core"
import { ORIGIN, SECRET, credentialsConfig, csrf, makeRequest, setCookies } from "../helpers"

const NAME = "__Host-authjs.csrf-token"

describe("GET /csrf", () => {
  it("mints a 64-hex token with a <token>|<sha256(token+secret)> __Host- cookie and no-cache headers", async () => {
    const response = await Auth(makeRequest("/auth/csrf"), credentialsConfig())
    expect(response.headers.get("cache-control")).toBe("private, no-cache, no-store")
    expect(response.headers.get("expires")).toBe("0")
    expect(response.headers.get("pragma")).toBe("no-cache")
    const { csrfToken } = (await response.json()) as { csrfToken: string }
    expect(csrfToken).toMatch(/^[0-9a-f]{64}$/)
    const cookie = setCookies(response).get(NAME)!
    expect(cookie.raw).toMatch(
      /^__Host-authjs\.csrf-token=[0-9a-f]{64}%7C[0-9a-f]{64}; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    )
    const hash = createHash("sha256").update(`${csrfToken}${SECRET}`).digest("hex")
    expect(cookie.value).toBe(`${csrfToken}|${hash}`)
    expect(setCookies(response).get("__Secure-authjs.callback-url")?.value).toBe(ORIGIN)
  })

  it("a valid cookie returns the same token and sets no CSRF cookie", async () => {
    const config = credentialsConfig()
    const first = await csrf(config)
    const response = await Auth(makeRequest("/auth/csrf", { cookies: first.cookies }), config)
    expect(((await response.json()) as { csrfToken: string }).csrfToken).toBe(first.token)
    expect(setCookies(response).has(NAME)).toBe(false)
  })

  it("a tampered cookie is replaced by a new token", async () => {
    const config = credentialsConfig()
    const first = await csrf(config)
    const tampered = { ...first.cookies, [NAME]: `${"0".repeat(64)}|${first.cookies[NAME]!.split("|")[1]}` }
    const response = await Auth(makeRequest("/auth/csrf", { cookies: tampered }), config)
    expect(((await response.json()) as { csrfToken: string }).csrfToken).not.toBe("0".repeat(64))
    expect(setCookies(response).has(NAME)).toBe(true)
  })

  it("secret rotation: a cookie hashed with the old secret stays valid when it is second (no comma-join)", async () => {
    const old = await csrf(credentialsConfig())
    const rotated = credentialsConfig({ secret: ["new-secret-abcdefabcdefabcdefabcdef", SECRET] })
    const response = await Auth(makeRequest("/auth/csrf", { cookies: old.cookies }), rotated)
    expect(((await response.json()) as { csrfToken: string }).csrfToken).toBe(old.token)
  })

  it("with skipCSRFCheck: 404, empty body, the CSRF cookie deleted, csrf-disabled warned", async () => {
    const config = credentialsConfig({ skipCSRFCheck })
    const response = await Auth(makeRequest("/auth/csrf"), config)
    expect(response.status).toBe(404)
    expect(await response.text()).toBe("")
    expect(setCookies(response).get(NAME)?.maxAge).toBe(0)
    expect(config.logger.warnings).toContain("csrf-disabled")
  })

  it("with skipCSRFCheck, credentials sign-in works without a token", async () => {
    const config = credentialsConfig({ skipCSRFCheck })
    const response = await Auth(
      makeRequest("/auth/callback/credentials", { body: { username: "ada", password: "pw" } }),
      config,
    )
    expect(setCookies(response).has("__Secure-authjs.session-token")).toBe(true)
  })

  it("only the body csrfToken counts, not a header or the query", async () => {
    const config = credentialsConfig()
    const pair = await csrf(config)
    const response = await Auth(
      makeRequest(`/auth/callback/credentials?csrfToken=${pair.token}`, {
        cookies: pair.cookies,
        headers: { "x-csrf-token": pair.token },
        body: { username: "ada", password: "pw" },
      }),
      config,
    )
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
  })
})

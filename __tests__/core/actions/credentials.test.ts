import { Auth } from "../../../lib/core"
import { decode } from "../../../lib/jwt"
import { CredentialsSignin } from "../../../lib/errors"
import Credentials from "../../../lib/providers/credentials"
import { ORIGIN, SECRET, applyCookies, credentialsConfig, csrf, demoUser, makeRequest, setCookies } from "../helpers"

async function postCredentials(config: ReturnType<typeof credentialsConfig>, body: Record<string, string>, extra = {}) {
  const { token, cookies } = await csrf(config)
  return Auth(
    makeRequest("/auth/callback/credentials", { cookies, body: { csrfToken: token, ...body }, ...extra }),
    config,
  )
}

describe("POST /callback/credentials", () => {
  it("signs in: 302 to the callback URL with a session cookie that decodes to the user", async () => {
    const config = credentialsConfig()
    const response = await postCredentials(config, { username: "ada", password: "pw", callbackUrl: "/dashboard" })
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/dashboard`)
    const session = setCookies(response).get("__Secure-authjs.session-token")!
    expect(session).toMatchObject({ httpOnly: true, secure: true, path: "/", sameSite: "lax" })
    expect(session.expires!.valueOf()).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000)
    const payload = await decode({ token: session.value, secret: SECRET, salt: "__Secure-authjs.session-token" })
    expect(payload).toMatchObject({
      sub: "user-1",
      name: demoUser.name,
      email: demoUser.email,
      picture: demoUser.image,
    })
  })

  it("works over http with unprefixed cookie names", async () => {
    const config = credentialsConfig()
    const { token, cookies } = await csrf(config, "http://localhost:3000")
    expect(Object.keys(cookies)).toContain("authjs.csrf-token")
    const response = await Auth(
      makeRequest("/auth/callback/credentials", {
        origin: "http://localhost:3000",
        cookies,
        json: true,
        body: { csrfToken: token, username: "ada", password: "pw" },
      }),
      config,
    )
    expect(response.status).toBe(302)
    const session = setCookies(response).get("authjs.session-token")!
    expect(session.secure).toBeFalsy()
    expect(response.headers.get("location")).toBe("http://localhost:3000")
  })

  it("authorize() returning null redirects to sign-in with CredentialsSignin and code=credentials, no session", async () => {
    const config = credentialsConfig({ debug: true })
    const response = await postCredentials(config, { username: "ada", password: "wrong" })
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials`)
    // no session: the only cookie is the sealed username refill (credentials-refill.test.ts)
    expect([...setCookies(response).keys()]).toEqual(["__Secure-gatehouse.credentials-refill"])
    // An expected outcome: a debug line with the code, not an error (issue 9, row 21).
    expect(config.logger.errors).toEqual([])
    expect(config.logger.debugs).toEqual(['credentials sign-in rejected (code "credentials")'])
  })

  it("a thrown CredentialsSignin subclass sets its code", async () => {
    class Custom extends CredentialsSignin {
      override code = "custom"
    }
    const config = credentialsConfig({
      providers: [
        Credentials({
          authorize: () => {
            throw new Custom()
          },
        }),
      ],
    })
    const response = await postCredentials(config, {})
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=CredentialsSignin&code=custom`)
  })

  it("a thrown plain Error becomes a Configuration error (CallbackRouteError logged)", async () => {
    const config = credentialsConfig({
      providers: [
        Credentials({
          authorize: () => {
            throw new Error("db down")
          },
        }),
      ],
    })
    const response = await postCredentials(config, {})
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(config.logger.errors.map((e) => (e as { type?: string }).type)).toEqual(["CallbackRouteError"])
  })

  it("custom pages.signIn receives the error", async () => {
    const config = credentialsConfig({ pages: { signIn: "/login" } })
    const response = await postCredentials(config, { username: "x" })
    expect(response.headers.get("location")).toBe(`${ORIGIN}/login?error=CredentialsSignin&code=credentials`)
  })

  it("without a CSRF token fails with MissingCSRF and no session", async () => {
    const config = credentialsConfig()
    const { cookies } = await csrf(config)
    const response = await Auth(
      makeRequest("/auth/callback/credentials", { cookies, body: { username: "ada", password: "pw" } }),
      config,
    )
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
    expect(response.headers.getSetCookie()).toEqual([])
  })

  it("a CSRF token from another cookie fails", async () => {
    const config = credentialsConfig()
    const a = await csrf(config)
    const b = await csrf(config)
    const response = await Auth(
      makeRequest("/auth/callback/credentials", {
        cookies: a.cookies,
        body: { csrfToken: b.token, username: "ada", password: "pw" },
      }),
      config,
    )
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`)
  })

  it("GET /callback/credentials is not supported: Configuration", async () => {
    const config = credentialsConfig()
    const response = await Auth(makeRequest("/auth/callback/credentials"), config)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
  })

  it("runs authorize → signIn → jwt → events.signIn in order with the reference's arguments", async () => {
    const calls: string[] = []
    const args: Record<string, unknown> = {}
    const config = credentialsConfig({
      callbacks: {
        signIn: (p) => {
          calls.push("signIn")
          args.signIn = p
          return true
        },
        jwt: (p) => {
          calls.push("jwt")
          args.jwt = p
          return { ...p.token, role: "admin" }
        },
      },
      events: {
        signIn: (m) => {
          calls.push("event")
          args.event = m
        },
      },
    })
    const response = await postCredentials(config, { username: "ada", password: "pw" })
    expect(calls).toEqual(["signIn", "jwt", "event"])
    const account = { providerAccountId: "user-1", type: "credentials", provider: "credentials" }
    expect(args.signIn).toMatchObject({ user: demoUser, account, credentials: { username: "ada", password: "pw" } })
    expect(args.jwt).toEqual({
      token: { name: demoUser.name, email: demoUser.email, picture: demoUser.image, sub: "user-1" },
      user: demoUser,
      account,
      isNewUser: false,
      trigger: "signIn",
    })
    expect(args.event).toEqual({ user: demoUser, account })
    const payload = await decode({
      token: setCookies(response).get("__Secure-authjs.session-token")!.value,
      secret: SECRET,
      salt: "__Secure-authjs.session-token",
    })
    expect(payload?.role).toBe("admin")
  })

  it.each([
    ["false", false, `${ORIGIN}/auth/error?error=AccessDenied`],
    ["a relative URL", "/denied", `${ORIGIN}/denied`],
    ["a foreign URL (mapped to the origin)", "https://evil.example/x", ORIGIN],
  ])("signIn callback returning %s redirects without a session", async (_name, value, location) => {
    const config = credentialsConfig({ callbacks: { signIn: () => value } })
    const response = await postCredentials(config, { username: "ada", password: "pw" })
    expect(response.headers.get("location")).toBe(location)
    expect(setCookies(response).has("__Secure-authjs.session-token")).toBe(false)
  })

  it("signIn callback throwing a plain error is AccessDenied", async () => {
    const config = credentialsConfig({
      callbacks: {
        signIn: () => {
          throw new Error("nope")
        },
      },
    })
    const response = await postCredentials(config, { username: "ada", password: "pw" })
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=AccessDenied`)
  })

  it("X-Auth-Return-Redirect answers 200 {url} and keeps the cookies", async () => {
    const config = credentialsConfig()
    const response = await postCredentials(
      config,
      { username: "ada", password: "pw" },
      { headers: { "X-Auth-Return-Redirect": "1" } },
    )
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ url: ORIGIN })
    expect(setCookies(response).has("__Secure-authjs.session-token")).toBe(true)
  })

  it("X-Auth-Return-Redirect on failure answers 200 {url} of the error page", async () => {
    const config = credentialsConfig()
    const response = await postCredentials(config, { username: "bad" }, { headers: { "X-Auth-Return-Redirect": "1" } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ url: `${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials` })
  })

  it("the session read back through GET /session is the user", async () => {
    const config = credentialsConfig()
    const { token, cookies } = await csrf(config)
    const signedIn = await Auth(
      makeRequest("/auth/callback/credentials", {
        cookies,
        body: { csrfToken: token, username: "ada", password: "pw" },
      }),
      config,
    )
    const jar = applyCookies(cookies, signedIn)
    const response = await Auth(makeRequest("/auth/session", { cookies: jar }), config)
    const body = (await response.json()) as { user: unknown }
    expect(body.user).toEqual({ name: demoUser.name, email: demoUser.email, image: demoUser.image })
  })

  it("authorize() receives a request whose JSON body holds the submitted fields (even from a form post)", async () => {
    let seen: unknown
    const config = credentialsConfig({
      providers: [
        Credentials({
          authorize: async (_credentials, request) => {
            seen = await request.json()
            return { id: "u9" }
          },
        }),
      ],
    })
    const response = await postCredentials(config, { username: "ada", password: "pw" })
    expect(response.status).toBe(302)
    expect(seen).toMatchObject({ username: "ada", password: "pw" })
  })
})

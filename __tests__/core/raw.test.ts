import { Auth, raw, type RawAuthError, type ResponseInternal } from "../../lib/core"
import { AdapterError, CredentialsSignin } from "../../lib/errors"
import { CookieJar } from "../../lib/core/kernel/cookies/jar"
import { withErrorCookies } from "../../lib/core/kernel/response"
import Password from "../../lib/providers/password"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { credentialsConfig, csrf, makeRequest } from "./helpers"

function internal(result: ResponseInternal | Response): ResponseInternal {
  if (result instanceof Response) throw new Error(`expected the internal result, got a ${result.status} Response`)
  return result
}

describe("the raw marker (framework authors)", () => {
  it("returns the internal result: status, headers, body, redirect and the cookies as objects", async () => {
    const config = { ...credentialsConfig(), raw } as const
    const result = internal(await Auth(makeRequest("/auth/csrf"), config))
    expect(result.status).toBe(200)
    expect(result.headers).toMatchObject({ "Content-Type": "application/json" })
    expect(result.body).toEqual({ csrfToken: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(result.cookies.map((c) => c.name)).toEqual(["__Host-authjs.csrf-token", "__Secure-authjs.callback-url"])
    expect(result.cookies[0]!.options).toMatchObject({ httpOnly: true, secure: true, sameSite: "lax", path: "/" })
  })

  it("a redirect result keeps `redirect` and status 302", async () => {
    const plain = credentialsConfig()
    const { token, cookies } = await csrf(plain)
    const result = internal(
      await Auth(
        makeRequest("/auth/callback/credentials", {
          cookies,
          body: { csrfToken: token, username: "ada", password: "pw" },
        }),
        { ...plain, raw },
      ),
    )
    expect(result.status).toBe(302)
    expect(result.redirect).toBe("https://app.example")
    expect(result.cookies.some((c) => c.name === "__Secure-authjs.session-token" && c.value.length > 0)).toBe(true)
  })

  it("an AuthError is rethrown instead of redirecting (so a server action can handle it)", async () => {
    const plain = credentialsConfig()
    const { token, cookies } = await csrf(plain)
    await expect(
      Auth(
        makeRequest("/auth/callback/credentials", {
          cookies,
          body: { csrfToken: token, username: "ada", password: "x" },
        }),
        { ...plain, raw },
      ),
    ).rejects.toBeInstanceOf(CredentialsSignin)
  })

  it("with X-Auth-Return-Redirect the error is not rethrown but answered with {url}", async () => {
    const plain = credentialsConfig()
    const { token, cookies } = await csrf(plain)
    const response = await Auth(
      makeRequest("/auth/callback/credentials", {
        cookies,
        headers: { "X-Auth-Return-Redirect": "1" },
        body: { csrfToken: token, username: "ada", password: "x" },
      }),
      { ...plain, raw },
    )
    if (!(response instanceof Response)) throw new Error("expected a Response")
    expect(await response.json()).toEqual({
      url: "https://app.example/auth/signin?error=CredentialsSignin&code=credentials",
    })
  })

  it("a request that cannot be parsed answers a Response even with raw (the overload says so)", async () => {
    const response = await Auth(makeRequest("/auth/not-an-action"), { ...credentialsConfig(), raw })
    expect(response).toBeInstanceOf(Response)
    expect((response as Response).status).toBe(400)
  })

  it("an error carrying cookies is a copy (same class, message, code, cause, stack); the original is untouched", () => {
    const cause = new Error("database down")
    const error = new AdapterError("The adapter failed", { cause })
    const jar = new CookieJar()
    jar.setKeptOnError("kept", "1", { path: "/" })
    jar.delete("spent", { path: "/" })
    const thrown = withErrorCookies(error, jar)
    expect(thrown).not.toBe(error)
    expect(thrown).toBeInstanceOf(AdapterError)
    expect([thrown.message, thrown.code, thrown.cause, thrown.stack]).toEqual([
      error.message,
      error.code,
      error.cause,
      error.stack,
    ])
    expect(thrown.cookies?.map((c) => [c.name, c.value])).toEqual([
      ["kept", "1"],
      ["spent", ""],
    ])
    // One error may be shared by concurrent requests: the cookies of one never ride on it into another.
    expect("cookies" in error).toBe(false)
    expect(withErrorCookies(error, new CookieJar())).toBe(error)
  })

  // Raw mode rethrows the error to the framework's code, as a server call does: the built-in page that reads the refill
  // cookie is not what answers, so no address or login name is left in a cookie.
  it("a rejected form sign-in keeps no refill cookie on the thrown error (credentials and Password)", async () => {
    const plain = credentialsConfig({
      adapter: MemoryAdapter(),
      providers: [
        ...credentialsConfig().providers,
        Password({
          sendVerificationRequest: () => undefined,
          sendPasswordReset: () => undefined,
          sendAccountExists: () => undefined,
          scrypt: { ln: 12, r: 8, p: 1 },
        }),
      ],
    })
    for (const [path, fields] of [
      ["/auth/callback/credentials", { username: "ada", password: "x" }],
      ["/auth/callback/password", { email: "ada@example.test", password: "not the password" }],
    ] as const) {
      const { token, cookies } = await csrf(plain)
      const form = makeRequest(path, { cookies, body: { csrfToken: token, ...fields } })
      const error = (await Auth(form, { ...plain, raw }).catch((e: unknown) => e)) as RawAuthError
      expect(error).toBeInstanceOf(CredentialsSignin)
      expect(error.cookies?.map((c) => c.name) ?? []).not.toContainEqual(expect.stringMatching(/credentials-refill$/))
      // The same form without the marker answers the built-in page, which the cookie refills.
      const page = await Auth(makeRequest(path, { cookies, body: { csrfToken: token, ...fields } }), plain)
      expect(page.headers.getSetCookie()).toContainEqual(expect.stringMatching(/credentials-refill=[^;]/))
    }
  })
})

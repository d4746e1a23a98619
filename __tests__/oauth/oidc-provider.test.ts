// The engine against a real OpenID Provider (oidc-provider 9): code flow, replays, tampered checks, errors, form_post.
import { decode } from "../../lib/jwt"
import { finishOAuthSignIn, normalizeOAuthProvider, stableUserId, startOAuthSignIn } from "../../lib/oauth"
import type { ResolvedOAuthProvider } from "../../lib/oauth"
import type { OAuthConfig } from "../../lib/providers/types"
import { InvalidCheck, OAuthCallbackError } from "../../lib/errors"
import { APP_ORIGIN, Browser, SECRET } from "../fixtures/oauth/flow"
import { driveAuthorization, startOidcProvider, type StartedOidcProvider } from "../fixtures/oauth/oidc-provider"

let op: StartedOidcProvider

beforeAll(async () => {
  op = await startOidcProvider({
    redirectUris: [
      `${APP_ORIGIN}/auth/callback/op`,
      `${APP_ORIGIN}/auth/callback/op-nonce`,
      `${APP_ORIGIN}/auth/callback/op-formpost`,
      `${APP_ORIGIN}/auth/callback/op-b`,
    ],
  })
})
afterAll(async () => op.close())

function provider(overrides: Partial<OAuthConfig> = {}): ResolvedOAuthProvider {
  return normalizeOAuthProvider(
    {
      id: "op",
      name: "Test OP",
      type: "oidc",
      issuer: op.issuer,
      clientId: op.clientId,
      clientSecret: op.clientSecret,
      allowInsecureRequests: true,
      ...overrides,
    },
    {},
  )
}

async function signIn(
  browser: Browser,
  p: ResolvedOAuthProvider,
  options: { login?: string; abort?: boolean } = {},
): Promise<URLSearchParams> {
  const url = await startOAuthSignIn(browser.context(p))
  const delivery = await driveAuthorization(url, `${APP_ORIGIN}/auth/callback/`, options)
  return delivery.params
}

describe("full code flow (oidcc-client-test)", () => {
  test("signs in, maps the profile, builds the account and clears the check cookies", async () => {
    const browser = new Browser()
    const p = provider({ checks: ["pkce", "state", "nonce"], id: "op-nonce" })
    const params = await signIn(browser, p, { login: "alice" })
    expect(params.get("iss")).toBe(op.issuer)
    expect(browser.cookies.size).toBe(3)

    const before = Math.floor(Date.now() / 1000)
    const result = await finishOAuthSignIn(browser.context(p), params)
    if (result.kind !== "profile") throw new Error("expected a profile")
    expect(result.profile.sub).toBe("alice")
    expect(result.user).toEqual({
      id: await stableUserId("op-nonce", "alice"),
      name: "User alice",
      email: "alice@example.test",
      image: "https://img.example.test/alice.png",
    })
    expect(result.account).toMatchObject({
      provider: "op-nonce",
      type: "oidc",
      providerAccountId: "alice",
      token_type: "bearer",
      access_token: expect.any(String),
      id_token: expect.any(String),
    })
    expect(result.account.expires_at).toBeGreaterThanOrEqual(before + 3600)
    expect(result.account.expires_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 3600)
    expect(browser.cookies.size).toBe(0)
    const deletions = browser.setCookies.filter((c) => c.options.maxAge === 0).map((c) => c.name)
    expect(deletions.sort()).toEqual(["authjs.nonce", "authjs.pkce.code_verifier", "authjs.state"])
  })

  test("a second sign-in of the same account yields the same stable user id", async () => {
    const p = provider()
    const ids: string[] = []
    const opJar = new Map<string, string>()
    for (let i = 0; i < 2; i++) {
      const browser = new Browser()
      const url = await startOAuthSignIn(browser.context(p))
      const delivery = await driveAuthorization(url, `${APP_ORIGIN}/auth/callback/`, { login: "bob", jar: opJar })
      const result = await finishOAuthSignIn(browser.context(p), delivery.params)
      if (result.kind !== "profile") throw new Error("expected a profile")
      ids.push(result.user.id as string)
    }
    expect(ids[0]).toBe(ids[1])
    expect(ids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})

describe("check cookies", () => {
  test("BCP-05: a replayed callback fails (the cookies are gone)", async () => {
    const browser = new Browser()
    const p = provider()
    const params = await signIn(browser, p)
    await finishOAuthSignIn(browser.context(p), params)
    await expect(finishOAuthSignIn(browser.context(p), params)).rejects.toMatchObject({
      name: "InvalidCheck",
      code: "invalid_check",
    })
  })

  test("a replayed callback with the old cookies kept fails at the OP (code is single-use)", async () => {
    const browser = new Browser()
    const p = provider()
    const params = await signIn(browser, p)
    const kept = new Map(browser.cookies)
    await finishOAuthSignIn(browser.context(p), params)
    const attacker = new Browser()
    for (const [k, v] of kept) attacker.cookies.set(k, v)
    await expect(finishOAuthSignIn(attacker.context(p), params)).rejects.toMatchObject({
      name: "OAuthProtocolError",
      code: "oauth_protocol_error",
      cause: { code: "OAUTH_RESPONSE_BODY_ERROR", reason: "invalid_grant", status: 400 },
    })
  })

  test("GHSA-7r7x: a code redeemed in a browser without the check cookies fails", async () => {
    const p = provider()
    const params = await signIn(new Browser(), p)
    const err = await finishOAuthSignIn(new Browser().context(p), params).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(InvalidCheck)
    expect((err as InvalidCheck).code).toBe("invalid_check")
    expect((err as InvalidCheck).cause).toMatchObject({ reason: "missing" })
  })

  test.each(["authjs.state", "authjs.pkce.code_verifier", "authjs.nonce"])(
    "a tampered %s cookie fails",
    async (name) => {
      const browser = new Browser()
      const p = provider({ id: "op-nonce", checks: ["state", "nonce"] })
      const params = await signIn(browser, p)
      const value = browser.cookies.get(name) as string
      browser.cookies.set(name, `${value.slice(0, -6)}AAAAAA`)
      const err = await finishOAuthSignIn(browser.context(p), params).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(InvalidCheck)
      expect((err as Error).message).toMatch(/^(state|pkceCodeVerifier|nonce) value could not be parsed$/)
    },
  )

  test.each(["authjs.state", "authjs.nonce"])("a missing %s cookie fails", async (name) => {
    const browser = new Browser()
    const p = provider({ id: "op-nonce", checks: ["state", "nonce"] })
    const params = await signIn(browser, p)
    browser.cookies.delete(name)
    await expect(finishOAuthSignIn(browser.context(p), params)).rejects.toBeInstanceOf(InvalidCheck)
  })

  test("GHSA-x445-f3h2-j279: check cookies minted for provider A fail on provider B", async () => {
    const browser = new Browser()
    const a = provider({ checks: ["state", "nonce"] })
    const b = provider({ id: "op-b", checks: ["state", "nonce"] })
    const params = await signIn(browser, a)
    const err = await finishOAuthSignIn(browser.context(b), params).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(InvalidCheck)
    expect((err as Error).message).toBe("state value could not be parsed")
    expect((err as InvalidCheck).cause).toMatchObject({ reason: "other-provider" })
  })

  test("a check cookie sealed for one purpose is refused for another", async () => {
    const browser = new Browser()
    const p = provider({ checks: ["state"] })
    const params = await signIn(browser, p)
    browser.cookies.set("authjs.pkce.code_verifier", browser.cookies.get("authjs.state") as string)
    const err = await finishOAuthSignIn(browser.context(p), params).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(InvalidCheck)
    expect((err as Error).message).toBe("pkceCodeVerifier value could not be parsed")
    expect((err as InvalidCheck).cause).toMatchObject({ reason: "undecodable" })
  })

  test("check cookies are JWEs bound to provider and purpose, 900 s", async () => {
    const browser = new Browser()
    const p = provider({ checks: ["state", "nonce"] })
    await startOAuthSignIn(browser.context(p))
    const pkce = await decode<Record<string, unknown>>({
      token: browser.cookies.get("authjs.pkce.code_verifier"),
      secret: SECRET,
      salt: "authjs.pkce.code_verifier",
    })
    expect(pkce).toMatchObject({ provider: "op", purpose: "pkce", value: expect.stringMatching(/^[\w-]{43,128}$/) })
    expect((pkce?.exp as number) - (pkce?.iat as number)).toBe(900)
    const set = browser.setCookies.find((c) => c.name === "authjs.state")
    expect(set?.options).toMatchObject({ httpOnly: true, sameSite: "lax", path: "/", maxAge: 900 })
    expect(set?.options.expires).toBeInstanceOf(Date)
  })
})

describe("provider errors", () => {
  test("error=access_denied becomes OAuthCallbackError", async () => {
    const browser = new Browser()
    const p = provider({ checks: ["state"] })
    const params = await signIn(browser, p, { abort: true })
    expect(params.get("error")).toBe("access_denied")
    const err = await finishOAuthSignIn(browser.context(p), params).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(OAuthCallbackError)
    expect((err as Error).message).toBe("OAuth Provider returned an error")
    expect((err as OAuthCallbackError).cause).toMatchObject({ providerId: "op", error: "access_denied" })
    expect(browser.cookies.size).toBe(0)
  })
})

describe("response_mode=form_post", () => {
  test("the response arrives as a POST body and signs in; state/nonce cookies are SameSite=None; Secure", async () => {
    const browser = new Browser()
    const p = provider({
      id: "op-formpost",
      checks: ["state", "nonce"],
      authorization: { params: { response_mode: "form_post" } },
    })
    expect(p.formPost).toBe(true)
    const url = await startOAuthSignIn(browser.context(p))
    expect(new URL(url).searchParams.get("response_mode")).toBe("form_post")
    for (const name of ["authjs.state", "authjs.nonce"]) {
      expect(browser.setCookies.find((c) => c.name === name)?.options).toMatchObject({ sameSite: "none", secure: true })
    }
    expect(browser.setCookies.find((c) => c.name === "authjs.pkce.code_verifier")?.options.sameSite).toBe("lax")
    const delivery = await driveAuthorization(url, `${APP_ORIGIN}/auth/callback/`)
    expect(delivery.method).toBe("POST")
    const result = await finishOAuthSignIn(browser.context(p), delivery.params)
    expect(result.kind).toBe("profile")
  })

  test("Apple's first-sign-in `user` field reaches profile() as profile.user; bad or oversized JSON is ignored", async () => {
    const apple = (profile: Record<string, unknown>) => {
      const user = profile.user as { name?: { firstName?: string; lastName?: string } } | undefined
      return { id: String(profile.sub), name: user?.name ? `${user.name.firstName} ${user.name.lastName}` : null }
    }
    const p = provider({
      id: "op-formpost",
      checks: ["state", "nonce"],
      authorization: { params: { response_mode: "form_post" } },
      profile: apple,
    })
    const nameOf = async (user: string | undefined) => {
      const browser = new Browser()
      const url = await startOAuthSignIn(browser.context(p))
      const delivery = await driveAuthorization(url, `${APP_ORIGIN}/auth/callback/`)
      const params = new URLSearchParams(delivery.params)
      if (user !== undefined) params.set("user", user)
      const result = await finishOAuthSignIn(browser.context(p), params)
      if (result.kind !== "profile") throw new Error("expected a profile")
      return { name: result.user.name, profileUser: result.profile.user }
    }
    const posted = JSON.stringify({ name: { firstName: "Ada", lastName: "Lovelace" }, email: "ada@example.com" })
    expect(await nameOf(posted)).toEqual({ name: "Ada Lovelace", profileUser: JSON.parse(posted) })
    expect((await nameOf("{not json")).name).toBeNull()
    const huge = JSON.stringify({ name: { firstName: "A".repeat(3000), lastName: "B" } })
    expect((await nameOf(huge)).name).toBeNull()
    expect((await nameOf(undefined)).profileUser).toBeUndefined()
  })
})

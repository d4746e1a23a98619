// The `oauth` type against a GitHub-like OAuth 2 server: profile + email fallback, client auth, PKCE, redirect proxy.
import { decodeJwt, exportJWK, generateKeyPair } from "jose"
import { InvalidCheck } from "../../lib/errors"
import { finishOAuthSignIn, normalizeOAuthProvider, startOAuthSignIn, stableUserId } from "../../lib/oauth"
import type { OAuthSignInResult, ResolvedOAuthProvider } from "../../lib/oauth"
import { GitHub } from "../../lib/providers/github"
import type { OAuthConfig } from "../../lib/providers/types"
import { customFetch } from "../../lib/symbols"
import { createState } from "../../lib/oauth/checks"
import { Browser, SECRET, followAuthorization } from "../fixtures/oauth/flow"
import { startGithubLike, type ClientAuthMethod, type GithubLike } from "../fixtures/oauth/github-like"

const servers: GithubLike[] = []
afterAll(async () => Promise.all(servers.map((s) => s.close())))

async function server(options: Parameters<typeof startGithubLike>[0] = {}): Promise<GithubLike> {
  const gh = await startGithubLike(options)
  servers.push(gh)
  return gh
}

function plainProvider(
  gh: GithubLike,
  overrides: Partial<OAuthConfig> = {},
  env: Parameters<typeof normalizeOAuthProvider>[1] = {},
): ResolvedOAuthProvider {
  return normalizeOAuthProvider(
    {
      id: "gh",
      name: "GitHub-like",
      type: "oauth",
      issuer: `${gh.origin}/login/oauth`,
      authorization: { url: `${gh.origin}/login/oauth/authorize`, params: { scope: "read:user user:email" } },
      token: `${gh.origin}/login/oauth/access_token`,
      userinfo: `${gh.origin}/user`,
      clientId: gh.clientId,
      clientSecret: gh.clientSecret,
      allowInsecureRequests: true,
      profile: (p) => ({ id: String(p.id), name: (p.name as string | null) ?? (p.login as string), email: p.email }),
      ...overrides,
    },
    env,
  )
}

async function signIn(p: ResolvedOAuthProvider, browser = new Browser()): Promise<OAuthSignInResult> {
  const url = await startOAuthSignIn(browser.context(p))
  return finishOAuthSignIn(browser.context(p), await followAuthorization(url))
}

function githubProvider(gh: GithubLike): ResolvedOAuthProvider {
  const { options, ...defaults } = GitHub({ enterprise: { baseUrl: gh.origin } })
  return normalizeOAuthProvider(
    { ...defaults, ...options, clientId: gh.clientId, clientSecret: gh.clientSecret, allowInsecureRequests: true },
    {},
  )
}

describe("GitHub provider (catalogue) against the GitHub-like server", () => {
  test("falls back to /user/emails (primary address) when the profile email is private", async () => {
    const gh = await server({ publicEmail: false })
    const result = await signIn(githubProvider(gh))
    if (result.kind !== "profile") throw new Error("expected a profile")
    expect(result.user).toEqual({
      id: await stableUserId("github", "583231"),
      name: "octocat",
      email: "primary@github.example",
      image: "https://avatars.example/u/583231",
    })
    expect(result.account).toMatchObject({
      provider: "github",
      type: "oauth",
      providerAccountId: "583231",
      token_type: "bearer",
      scope: "read:user,user:email",
    })
    expect(gh.apiRequests.map((r) => r.path)).toEqual(["/user", "/user/emails"])
    for (const r of gh.apiRequests) {
      expect(r.headers.authorization).toMatch(/^Bearer gho_/)
      expect(r.query.has("access_token")).toBe(false)
    }
  })

  test("an ID token from a plain OAuth 2 server is neither checked nor kept: the profile comes from userinfo", async () => {
    // Signed by nobody the client knows, for another issuer: as Vercel or PayPal answer an `openid` scope.
    const idToken = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJodHRwczovL290aGVyLmV4YW1wbGUiLCJzdWIiOiJ4In0.c2ln"
    const gh = await server({ idToken })
    const result = await signIn(plainProvider(gh))
    if (result.kind !== "profile") throw new Error("expected a profile")
    expect(result.user.email).toBe("octocat@github.example")
    expect(result.account.id_token).toBeUndefined()
    expect(JSON.stringify(result)).not.toContain(idToken)
  })

  test("uses the public email when there is one", async () => {
    const gh = await server()
    const result = await signIn(githubProvider(gh))
    if (result.kind !== "profile") throw new Error("expected a profile")
    expect(result.user.email).toBe("octocat@github.example")
    expect(gh.apiRequests.map((r) => r.path)).toEqual(["/user"])
  })

  test("the authorization URL carries the GitHub scopes, PKCE S256 and no nonce", async () => {
    const gh = await server()
    const url = new URL(await startOAuthSignIn(new Browser().context(githubProvider(gh))))
    expect(`${url.origin}${url.pathname}`).toBe(`${gh.origin}/login/oauth/authorize`)
    expect(url.searchParams.get("scope")).toBe("read:user user:email")
    expect(url.searchParams.get("response_type")).toBe("code")
    expect(url.searchParams.get("redirect_uri")).toBe("http://app.test/auth/callback/github")
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
    expect(url.searchParams.has("nonce")).toBe(false)
  })
})

describe("BCP-13: client authentication methods (token request shape)", () => {
  test.each<ClientAuthMethod>(["client_secret_basic", "client_secret_post", "none"])("%s", async (method) => {
    const gh = await server({ authMethod: method })
    const result = await signIn(plainProvider(gh, { client: { token_endpoint_auth_method: method } }))
    expect(result.kind).toBe("profile")
    const [request] = gh.tokenRequests
    expect(request.body.get("grant_type")).toBe("authorization_code")
    expect(request.query.toString()).toBe("")
    if (method === "client_secret_basic") {
      const decoded = Buffer.from(String(request.headers.authorization).slice(6), "base64").toString()
      // RFC 6749 2.3.1: both parts are form-urlencoded (spaces as "+") before base64.
      expect(decoded.split(":")[0]).toBe("gh+client%3Aid")
      expect(request.body.has("client_secret")).toBe(false)
    } else {
      expect(request.headers.authorization).toBeUndefined()
      expect(request.body.get("client_id")).toBe(gh.clientId)
      expect(request.body.get("client_secret")).toBe(method === "client_secret_post" ? gh.clientSecret : null)
    }
  })

  test("private_key_jwt: a short-lived assertion with a unique jti and aud = issuer", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true })
    const gh = await server({ authMethod: "private_key_jwt", clientPublicKey: publicKey })
    const jwk = { ...(await exportJWK(privateKey)), kid: "client-key-1", alg: "ES256" }
    const p = plainProvider(gh, {
      client: { token_endpoint_auth_method: "private_key_jwt" },
      token: { url: `${gh.origin}/login/oauth/access_token`, clientPrivateKey: jwk },
      clientSecret: undefined,
    })
    expect((await signIn(p)).kind).toBe("profile")
    expect((await signIn(p)).kind).toBe("profile")
    const claims = gh.tokenRequests.map((r) => decodeJwt(r.body.get("client_assertion") ?? ""))
    expect(claims[0]).toMatchObject({ iss: gh.clientId, sub: gh.clientId, aud: `${gh.origin}/login/oauth` })
    expect((claims[0].exp as number) - (claims[0].iat as number)).toBeLessThanOrEqual(60)
    expect(claims[0].jti).not.toBe(claims[1].jti)
    expect(gh.tokenRequests[0].body.has("client_secret")).toBe(false)
  })
})

describe("PKCE (BCP-03, BCP-04)", () => {
  test("always present, even when the provider asks for no checks; the verifier reaches the token endpoint", async () => {
    const gh = await server()
    const p = plainProvider(gh, { checks: ["none"] })
    expect(p.checks).toEqual(["pkce"])
    const browser = new Browser()
    const url = new URL(await startOAuthSignIn(browser.context(p)))
    expect(url.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/)
    await finishOAuthSignIn(browser.context(p), await followAuthorization(url.href))
    expect(gh.tokenRequests[0].body.get("code_verifier")).toMatch(/^[A-Za-z0-9\-._~]{43,128}$/)
  })

  test("one fresh verifier per request (2000 sign-in starts, no repeats)", async () => {
    const gh = await server()
    const p = plainProvider(gh)
    const challenges = new Set<string>()
    for (let i = 0; i < 2000; i++) {
      const url = new URL(await startOAuthSignIn(new Browser().context(p)))
      challenges.add(url.searchParams.get("code_challenge") as string)
    }
    expect(challenges.size).toBe(2000)
  })

  test("the request query cannot override pinned parameters", async () => {
    const gh = await server()
    const p = plainProvider(gh)
    const url = new URL(
      await startOAuthSignIn(
        new Browser().context(p, {
          query: {
            response_type: "token",
            code_challenge_method: "plain",
            redirect_uri: "https://evil",
            prompt: "login",
          },
        }),
      ),
    )
    expect(url.searchParams.get("response_type")).toBe("code")
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
    expect(url.searchParams.get("redirect_uri")).toBe("http://app.test/auth/callback/gh")
    expect(url.searchParams.get("prompt")).toBe("login")
  })
})

describe("customFetch", () => {
  test("replaces fetch for the token and userinfo requests", async () => {
    const gh = await server()
    const seen: string[] = []
    const spy: typeof fetch = (input, init) => {
      seen.push(new URL(input instanceof Request ? input.url : String(input)).pathname)
      return fetch(input, init)
    }
    const result = await signIn(plainProvider(gh, { [customFetch]: spy }))
    expect(result.kind).toBe("profile")
    expect(seen).toEqual(["/login/oauth/access_token", "/user"])
  })
})

describe("redirect proxy", () => {
  const PREVIEW = "http://preview-42.app.test"
  const PROXY = "http://auth.app.test"

  test("the proxy forwards the callback to the deployment that started the flow, which completes it", async () => {
    const gh = await server()
    const p = plainProvider(gh, { redirectProxyUrl: `${PROXY}/auth` }, { redirectProxyAllowedOrigins: [PREVIEW] })
    expect(p.checks).toEqual(["pkce", "state"])
    const browser = new Browser()
    const url = new URL(await startOAuthSignIn(browser.context(p, { origin: PREVIEW })))
    expect(url.searchParams.get("redirect_uri")).toBe(`${PROXY}/auth/callback/gh`)
    const params = await followAuthorization(url.href)

    const hop = await finishOAuthSignIn(new Browser().context(p, { origin: PROXY }), params)
    expect(hop.kind).toBe("proxy")
    const forwarded = new URL((hop as { redirect: string }).redirect)
    expect(`${forwarded.origin}${forwarded.pathname}`).toBe(`${PREVIEW}/auth/callback/gh`)
    expect(forwarded.searchParams.toString()).toBe(params.toString())

    const result = await finishOAuthSignIn(browser.context(p, { origin: PREVIEW }), forwarded.searchParams)
    expect(result.kind).toBe("profile")
    expect(gh.tokenRequests[0].body.get("redirect_uri")).toBe(`${PROXY}/auth/callback/gh`)
  })

  test("the proxy Location is `<origin>?<params>` as the state carries it: no `/` added to a bare origin", async () => {
    const gh = await server()
    const p = plainProvider(gh, { redirectProxyUrl: `${PROXY}/auth` }, { redirectProxyAllowedOrigins: [PREVIEW] })
    const params = new URLSearchParams({ code: "code-1", state: await createState(SECRET, PREVIEW) })
    const hop = await finishOAuthSignIn(new Browser().context(p, { origin: PROXY }), params)
    expect(hop).toEqual({ kind: "proxy", redirect: `${PREVIEW}?${params}` })
  })

  test("on the proxy, a state sealed with another secret → InvalidCheck('State could not be decoded')", async () => {
    const gh = await server()
    const p = plainProvider(gh, { redirectProxyUrl: `${PROXY}/auth` }, { redirectProxyAllowedOrigins: [PREVIEW] })
    const url = new URL(await startOAuthSignIn(new Browser().context(p, { origin: PREVIEW, secret: ["other-secret"] })))
    const params = await followAuthorization(url.href)
    const err = await finishOAuthSignIn(new Browser().context(p, { origin: PROXY }), params).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(InvalidCheck)
    expect((err as Error).message).toBe("State could not be decoded")
  })

  test("a form_post provider gets no redirect proxy", () => {
    const p = normalizeOAuthProvider(
      { id: "apple-like", name: "A", type: "oidc", issuer: "https://op.example", clientId: "c" },
      { redirectProxyUrl: `${PROXY}/auth` },
    )
    expect(p.redirectProxyUrl).toBe(`${PROXY}/auth`)
    const formPost = normalizeOAuthProvider(
      {
        id: "apple-like",
        name: "A",
        type: "oidc",
        issuer: "https://op.example",
        clientId: "c",
        authorization: { params: { response_mode: "form_post" } },
      },
      { redirectProxyUrl: `${PROXY}/auth` },
    )
    expect(formPost.redirectProxyUrl).toBeUndefined()
    expect(formPost.checks).toEqual(["pkce"])
  })
})

// normalizeOAuthProvider: validation (reference 10.2 item 6, BCP-01/04), defaults, and the default profile/account.
import { InvalidConfig, InvalidEndpoints, OAuthProfileParseError } from "../../lib/errors"
import { defaultAccount, defaultProfile, normalizeOAuthProvider } from "../../lib/oauth"
import type { OAuthConfig } from "../../lib/providers/types"

const base: OAuthConfig = { id: "acme", name: "Acme", type: "oauth", clientId: "id", clientSecret: "secret" }
const endpoints = {
  authorization: "https://acme.example/authorize",
  token: "https://acme.example/token",
  userinfo: "https://acme.example/userinfo",
}

describe("InvalidEndpoints", () => {
  test.each([
    ["authorization", {}],
    ["token", { authorization: endpoints.authorization }],
    ["userinfo", { authorization: endpoints.authorization, token: { url: endpoints.token } }],
  ])("no issuer and no %s endpoint", (key, partial) => {
    const run = (): unknown => normalizeOAuthProvider({ ...base, ...partial }, {})
    expect(run).toThrow(InvalidEndpoints)
    expect(run).toThrow(
      `Provider "acme" is missing both \`issuer\` and \`${key}\` endpoint config. At least one of them is required`,
    )
  })

  test("an endpoint object with params only does not count", () => {
    expect(() => normalizeOAuthProvider({ ...base, ...endpoints, userinfo: { params: { a: "b" } } }, {})).toThrow(
      "`userinfo` endpoint config",
    )
  })

  test("an issuer is enough", () => {
    expect(normalizeOAuthProvider({ ...base, issuer: "https://acme.example" }, {}).authorization.url).toBeUndefined()
  })
})

describe("BCP-01 / BCP-04: forbidden configurations", () => {
  test.each(["token", "code token", "id_token token", "code id_token"])("response_type=%s is rejected", (type) => {
    expect(() =>
      normalizeOAuthProvider(
        { ...base, ...endpoints, authorization: { url: endpoints.authorization, params: { response_type: type } } },
        {},
      ),
    ).toThrow(InvalidConfig)
  })

  test("response_type in the authorization URL itself is rejected too", () => {
    expect(() =>
      normalizeOAuthProvider(
        { ...base, ...endpoints, authorization: `${endpoints.authorization}?response_type=token` },
        {},
      ),
    ).toThrow("Only response_type=code is supported")
  })

  test("a plain PKCE check or method is rejected", () => {
    expect(() => normalizeOAuthProvider({ ...base, ...endpoints, checks: ["plain" as never] }, {})).toThrow(
      "Unsupported check",
    )
    expect(() =>
      normalizeOAuthProvider({ ...base, ...endpoints, authorizationParams: { code_challenge_method: "plain" } }, {}),
    ).toThrow("Only the S256 PKCE method is supported")
  })

  test("alg none needs allowInsecureUnsignedIdTokens", () => {
    const config = { ...base, ...endpoints, client: { id_token_signed_response_alg: "none" } }
    expect(() => normalizeOAuthProvider(config, {})).toThrow(InvalidConfig)
    expect(normalizeOAuthProvider({ ...config, allowInsecureUnsignedIdTokens: true }, {}).client).toEqual({
      id_token_signed_response_alg: "none",
    })
  })

  test("an unknown client authentication method is rejected", () => {
    const client = { token_endpoint_auth_method: "tls_client_auth" as never }
    expect(() => normalizeOAuthProvider({ ...base, ...endpoints, client }, {})).toThrow(
      "Unsupported client authentication method",
    )
  })

  test("a redirect proxy URL that is not http(s) is rejected", () => {
    expect(() =>
      normalizeOAuthProvider({ ...base, ...endpoints }, { redirectProxyUrl: "javascript:alert(1)" }),
    ).toThrow("Invalid redirectProxyUrl")
  })
})

describe("defaults", () => {
  test("checks: PKCE always; state with a redirect proxy; nonce when asked", () => {
    expect(normalizeOAuthProvider({ ...base, ...endpoints }, {}).checks).toEqual(["pkce"])
    expect(normalizeOAuthProvider({ ...base, ...endpoints, checks: ["state"] }, {}).checks).toEqual(["pkce", "state"])
    expect(normalizeOAuthProvider({ ...base, ...endpoints, checks: ["nonce"] }, {}).checks).toEqual(["pkce", "nonce"])
    const proxied = normalizeOAuthProvider(
      { ...base, ...endpoints },
      { redirectProxyUrl: "https://auth.example/auth/" },
    )
    expect(proxied.checks).toEqual(["pkce", "state"])
    expect(proxied.redirectProxyUrl).toBe("https://auth.example/auth")
  })

  test("default scope, claims param as JSON, authorizationParams merged, endpoint params in the URL", () => {
    const p = normalizeOAuthProvider(
      {
        ...base,
        ...endpoints,
        authorization: { url: endpoints.authorization, params: { claims: { id_token: { email: null } }, max: 3 } },
        authorizationParams: { prompt: "consent" },
        userinfo: { url: endpoints.userinfo, params: { fields: "id,email" } },
      },
      {},
    )
    expect(p.authorization.params).toEqual({
      claims: '{"id_token":{"email":null}}',
      max: "3",
      prompt: "consent",
      scope: "openid profile email",
    })
    expect(p.userinfo.url).toBe("https://acme.example/userinfo?fields=id%2Cemail")
  })

  test("a scope in the URL is kept", () => {
    const p = normalizeOAuthProvider({ ...base, ...endpoints, authorization: `${endpoints.authorization}?scope=x` }, {})
    expect(p.authorization.params.scope).toBeUndefined()
  })

  test("the result is frozen, nested parts too", () => {
    const p = normalizeOAuthProvider({ ...base, ...endpoints }, {})
    expect(Object.isFrozen(p)).toBe(true)
    expect(Object.isFrozen(p.authorization.params)).toBe(true)
    expect(Object.isFrozen(p.checks)).toBe(true)
    expect(p.idToken).toBe(true)
    expect(p.allowDangerousEmailAccountLinking).toBe(false)
  })
})

describe("default profile and account", () => {
  test("profile: id = sub ?? id; name falls back to nickname and preferred_username", () => {
    expect(defaultProfile({ sub: "s1", id: "i1", nickname: "nick", email: "a@b.c", picture: "https://p" })).toEqual({
      id: "s1",
      name: "nick",
      email: "a@b.c",
      image: "https://p",
    })
    expect(defaultProfile({ id: "i1", preferred_username: "pref" })).toEqual({ id: "i1", name: "pref" })
  })

  test("profile without sub or id → OAuthProfileParseError, never a random id", () => {
    expect(() => defaultProfile({ name: "nobody" })).toThrow(OAuthProfileParseError)
  })

  test("account keeps the token fields worth storing", () => {
    expect(
      defaultAccount({
        access_token: "at",
        token_type: "bearer",
        expires_in: 3600,
        expires_at: 1_700_003_600,
        refresh_token: "rt",
        id_token: "it",
        scope: "openid",
        session_state: "ss",
        other: "x",
      }),
    ).toEqual({
      access_token: "at",
      token_type: "bearer",
      expires_at: 1_700_003_600,
      refresh_token: "rt",
      id_token: "it",
      scope: "openid",
      session_state: "ss",
    })
  })
})

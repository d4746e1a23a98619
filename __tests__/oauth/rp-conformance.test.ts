// One test per OpenID Foundation RP conformance module (security-checklist 3.4) against the misbehaving OP.
import {
  finishOAuthSignIn,
  normalizeOAuthProvider,
  startOAuthSignIn,
  type ResolvedOAuthProvider,
} from "../../lib/oauth"
import type { OAuthSignInResult } from "../../lib/oauth"
import type { OAuthConfig } from "../../lib/providers/types"
import { OAuthProtocolError } from "../../lib/errors"
import { Browser, followAuthorization } from "../fixtures/oauth/flow"
import { fakeDateOnly } from "../fixtures/clock"
import { startMisbehavingOp, type MisbehavingOp, type MisbehaviorCase } from "../fixtures/oauth/misbehaving-op"

let op: MisbehavingOp

beforeAll(async () => {
  op = await startMisbehavingOp({ case: "oidcc-client-test" })
})
afterAll(async () => op.close())

function provider(overrides: Partial<OAuthConfig> = {}): ResolvedOAuthProvider {
  return normalizeOAuthProvider(
    {
      id: "evil",
      name: "Evil OP",
      type: "oidc",
      issuer: op.issuer,
      clientId: op.clientId,
      clientSecret: op.clientSecret,
      checks: ["pkce", "state", "nonce"],
      allowInsecureRequests: true,
      ...overrides,
    },
    {},
  )
}

async function signIn(p: ResolvedOAuthProvider): Promise<OAuthSignInResult> {
  const browser = new Browser()
  const url = await startOAuthSignIn(browser.context(p))
  const params = await followAuthorization(url)
  return finishOAuthSignIn(browser.context(p), params)
}

async function run(c: MisbehaviorCase, overrides: Partial<OAuthConfig> = {}): Promise<OAuthSignInResult> {
  op.setCase(c)
  return signIn(provider(overrides))
}

function expectProfile(result: OAuthSignInResult): Extract<OAuthSignInResult, { kind: "profile" }> {
  if (result.kind !== "profile") throw new Error("expected a profile")
  expect(result.account.providerAccountId).toBe(op.sub)
  return result
}

/**
 * The engine's rejection of a case: always an `OAuthProtocolError` (code `oauth_protocol_error`) whose `cause` names
 * the protocol library's code (oauth4webapi `OAUTH_…`, jose `ERR_…`, or Gatehouse's `ID_TOKEN_INVALID`) and what it
 * checked; never compared by its English message.
 */
async function rejection(
  attempt: Promise<unknown>,
): Promise<{ code: string; reason?: string; claim?: string; attribute?: string; provider: string }> {
  const err = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(OAuthProtocolError)
  expect((err as OAuthProtocolError).code).toBe("oauth_protocol_error")
  const cause = (err as OAuthProtocolError).cause as { code: string; provider: string }
  expect(cause.provider).toBe("evil")
  return cause
}
const rejected = (c: MisbehaviorCase, overrides: Partial<OAuthConfig> = {}) => rejection(run(c, overrides))

describe("Basic RP", () => {
  test("oidcc-client-test", async () => {
    const result = expectProfile(await run("oidcc-client-test"))
    expect(result.user.email).toBe("evil.user@example.test")
  })

  test("oidcc-client-test-idtoken-sig-rs256", async () => {
    expectProfile(await run("oidcc-client-test-idtoken-sig-rs256"))
  })

  test("oidcc-client-test-invalid-iss", async () => {
    expect(await rejected("oidcc-client-test-invalid-iss")).toMatchObject({
      code: "OAUTH_JWT_CLAIM_COMPARISON_FAILED",
      claim: "iss",
    })
  })

  test("oidcc-client-test-missing-sub", async () => {
    expect(await rejected("oidcc-client-test-missing-sub")).toMatchObject({ code: "OAUTH_INVALID_RESPONSE" })
  })

  test("oidcc-client-test-invalid-aud", async () => {
    expect(await rejected("oidcc-client-test-invalid-aud")).toMatchObject({
      code: "OAUTH_JWT_CLAIM_COMPARISON_FAILED",
      claim: "aud",
    })
  })

  test("oidcc-client-test-missing-aud", async () => {
    expect(await rejected("oidcc-client-test-missing-aud")).toMatchObject({ code: "OAUTH_INVALID_RESPONSE" })
  })

  test("oidcc-client-test-missing-iat", async () => {
    expect(await rejected("oidcc-client-test-missing-iat")).toMatchObject({ code: "OAUTH_INVALID_RESPONSE" })
  })

  test("oidcc-client-test-kid-absent-single-jwks", async () => {
    expectProfile(await run("oidcc-client-test-kid-absent-single-jwks"))
  })

  test("oidcc-client-test-kid-absent-multiple-jwks", async () => {
    expect(await rejected("oidcc-client-test-kid-absent-multiple-jwks")).toMatchObject({
      code: "ERR_JWKS_MULTIPLE_MATCHING_KEYS",
      reason: "ERR_JWKS_MULTIPLE_MATCHING_KEYS",
    })
  })

  test("oidcc-client-test-idtoken-sig-none (rejected unless explicitly registered)", async () => {
    expect(await rejected("oidcc-client-test-idtoken-sig-none")).toMatchObject({
      code: "ID_TOKEN_INVALID",
      reason: "unsigned ID token",
    })
  })

  test("oidcc-client-test-idtoken-sig-none (accepted when registered with allowInsecureUnsignedIdTokens)", async () => {
    const result = await run("oidcc-client-test-idtoken-sig-none", {
      allowInsecureUnsignedIdTokens: true,
      client: { id_token_signed_response_alg: "none" },
    })
    expectProfile(result)
  })

  test("oidcc-client-test-invalid-sig-rs256", async () => {
    expect(await rejected("oidcc-client-test-invalid-sig-rs256")).toMatchObject({
      code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
      reason: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
    })
  })

  test("oidcc-client-test-invalid-sig-es256", async () => {
    expect(await rejected("oidcc-client-test-invalid-sig-es256")).toMatchObject({
      code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
      reason: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
    })
  })

  test("oidcc-client-test-invalid-sig-hs256", async () => {
    expect(
      await rejected("oidcc-client-test-invalid-sig-hs256", {
        client: { id_token_signed_response_alg: "HS256" },
      }),
    ).toMatchObject({ code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED", reason: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" })
  })

  test("oidcc-client-test-userinfo-invalid-sub", async () => {
    expect(await rejected("oidcc-client-test-userinfo-invalid-sub", { idToken: false })).toMatchObject({
      code: "OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED",
      attribute: "sub",
    })
  })

  test("oidcc-client-test-nonce-invalid", async () => {
    expect(await rejected("oidcc-client-test-nonce-invalid")).toMatchObject({
      code: "OAUTH_JWT_CLAIM_COMPARISON_FAILED",
      claim: "nonce",
    })
  })

  test("oidcc-client-test-scope-userinfo-claims", async () => {
    const result = expectProfile(await run("oidcc-client-test-scope-userinfo-claims", { idToken: false }))
    expect(result.user.email).toBe("userinfo.user@example.test")
    expect(result.user.name).toBe("Userinfo Name")
  })

  test("oidcc-client-test-client-secret-basic", async () => {
    op.requests.length = 0
    expectProfile(await run("oidcc-client-test"))
    const tokenRequest = op.requests.find((r) => r.path === "/token")
    expect(tokenRequest?.headers.authorization).toMatch(/^Basic /)
    expect(tokenRequest?.body.has("client_secret")).toBe(false)
    expect(tokenRequest?.body.get("grant_type")).toBe("authorization_code")
  })
})

describe("Config RP", () => {
  test("oidcc-client-test-discovery-openid-config and -jwks-uri-keys", async () => {
    op.requests.length = 0
    expectProfile(await run("oidcc-client-test"))
    const paths = op.requests.map((r) => r.path)
    expect(paths).toContain("/.well-known/openid-configuration")
    expect(paths).toContain("/jwks")
  })

  test("oidcc-client-test-discovery-issuer-mismatch", async () => {
    expect(await rejected("oidcc-client-test-discovery-issuer-mismatch")).toMatchObject({
      code: "OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED",
      attribute: "issuer",
    })
  })

  test("oidcc-client-test-signing-key-rotation", async () => {
    op.setCase("oidcc-client-test-signing-key-rotation")
    const p = provider()
    const before = op.jwksFetches()
    expectProfile(await signIn(p))
    await op.rotateKeys()
    expectProfile(await signIn(p))
    expect(op.jwksFetches() - before).toBe(2)
  })

  test("oidcc-client-test-signing-key-rotation-just-before-signing", async () => {
    op.setCase("oidcc-client-test-signing-key-rotation-just-before-signing")
    const p = provider()
    expectProfile(await signIn(p))
    expectProfile(await signIn(p))
  })

  test("IDT-14: an unknown kid triggers one JWKS refetch, then the refetch is rate-limited", async () => {
    op.setCase("idt-unknown-kid")
    const p = provider()
    const before = op.jwksFetches()
    expect(await rejection(signIn(p))).toMatchObject({ code: "ERR_JWKS_NO_MATCHING_KEY" })
    expect(op.jwksFetches() - before).toBe(2)
    expect(await rejection(signIn(p))).toMatchObject({ code: "ERR_JWKS_NO_MATCHING_KEY" })
    expect(op.jwksFetches() - before).toBe(2)
  })
})

describe("JWKS refetch throttle (next-wave C.1 step 3, C.2 rule 4)", () => {
  afterEach(() => jest.useRealTimers())

  test("an unknown kid refetches the JWKS at most once per 60 s, then again after", async () => {
    const start = Date.now()
    fakeDateOnly(start)
    op.setCase("idt-unknown-kid")
    const p = provider()
    const before = op.jwksFetches()
    expect(await rejection(signIn(p))).toMatchObject({ code: "ERR_JWKS_NO_MATCHING_KEY" })
    expect(op.jwksFetches() - before).toBe(2) // the first download, and one refetch for the unknown kid
    jest.setSystemTime(start + 59_000)
    expect(await rejection(signIn(p))).toMatchObject({ code: "ERR_JWKS_NO_MATCHING_KEY" })
    expect(op.jwksFetches() - before).toBe(2)
    jest.setSystemTime(start + 60_001)
    expect(await rejection(signIn(p))).toMatchObject({ code: "ERR_JWKS_NO_MATCHING_KEY" })
    expect(op.jwksFetches() - before).toBe(3)
    jest.setSystemTime(start + 90_000)
    expect(await rejection(signIn(p))).toMatchObject({ code: "ERR_JWKS_NO_MATCHING_KEY" })
    expect(op.jwksFetches() - before).toBe(3)
    // A rotated key is picked up by that one refetch: sign-in works again once the throttle allows it.
    op.setCase("oidcc-client-test-signing-key-rotation")
    await op.rotateKeys()
    jest.setSystemTime(start + 120_002)
    expectProfile(await signIn(p))
    expect(op.jwksFetches() - before).toBe(4)
  })
})

describe("non-certification modules and oauth4webapi negative cases", () => {
  test("oidcc-client-test-ignores-unparseable-key-in-jwks", async () => {
    expectProfile(await run("oidcc-client-test-ignores-unparseable-key-in-jwks"))
  })

  test("oidcc-client-test-missing-nonce (IDT-10)", async () => {
    expect(await rejected("oidcc-client-test-missing-nonce")).toMatchObject({ code: "OAUTH_INVALID_RESPONSE" })
  })

  test("rfc9207-missing-iss", async () => {
    expect(await rejected("rfc9207-missing-iss")).toMatchObject({ code: "OAUTH_INVALID_RESPONSE" })
  })

  test("rfc9207-wrong-iss", async () => {
    expect(await rejected("rfc9207-wrong-iss")).toMatchObject({ code: "OAUTH_INVALID_RESPONSE" })
  })

  test("IDT-04: azp of another client", async () => {
    expect(await rejected("idt-invalid-azp")).toMatchObject({
      code: "ID_TOKEN_INVALID",
      reason: "azp is another client",
    })
  })

  test("IDT-03: an additional untrusted audience", async () => {
    expect(await rejected("idt-untrusted-extra-aud")).toMatchObject({
      code: "OAUTH_JWT_CLAIM_COMPARISON_FAILED",
      claim: "aud",
    })
  })

  test("IDT-03: aud as an array with only the client is valid", async () => {
    expectProfile(await run("idt-aud-array-valid"))
  })

  test("IDT-08: expired ID token", async () => {
    expect(await rejected("idt-expired")).toMatchObject({ code: "OAUTH_JWT_TIMESTAMP_CHECK_FAILED", claim: "exp" })
  })

  test("IDT-08: ID token without exp", async () => {
    expect(await rejected("idt-missing-exp")).toMatchObject({ code: "OAUTH_INVALID_RESPONSE" })
  })

  test("IDT-09: iat a week old", async () => {
    expect(await rejected("idt-iat-week-old")).toMatchObject({ code: "ID_TOKEN_INVALID", reason: "iat out of range" })
  })

  test("IDT-09: iat in the future", async () => {
    expect(await rejected("idt-iat-future")).toMatchObject({ code: "ID_TOKEN_INVALID", reason: "iat out of range" })
  })

  test("IDT-06: HS256 signed with the RSA public key is refused", async () => {
    expect(await rejected("idt-hs256-with-rsa-public-key")).toMatchObject({ code: "OAUTH_INVALID_RESPONSE" })
  })

  test("IDT-06: an alternate alg the client did not expect is refused", async () => {
    expect(await rejected("idt-alternate-alg")).toMatchObject({ code: "OAUTH_INVALID_RESPONSE" })
  })

  test("token_type is case-insensitive and expires_in optional", async () => {
    const result = expectProfile(await run("token-type-case-and-no-expires-in"))
    expect(result.account.token_type).toBe("bearer")
    expect(result.account.expires_at).toBeUndefined()
  })

  test("UI-02: the access token goes in the Authorization header, never in the query", async () => {
    op.requests.length = 0
    expectProfile(await run("oidcc-client-test-scope-userinfo-claims", { idToken: false }))
    const userinfo = op.requests.filter((r) => r.path === "/userinfo")
    expect(userinfo).toHaveLength(1)
    expect(userinfo[0].headers.authorization).toMatch(/^Bearer .+/)
    expect(userinfo[0].query.has("access_token")).toBe(false)
    expect(userinfo[0].method).toBe("GET")
  })
})

// The high-security relying party against real oidc-provider servers: PAR (RFC 9126), private_key_jwt, DPoP
// (RFC 9449), signed request objects (RFC 9101) and the fapi2 preset, each negative case after its control.
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader } from "jose"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { AuthError } from "../../lib/errors"
import type { OAuthConfig } from "../../lib/providers/types"
import { customFetch } from "../../lib/symbols"
import { Gatehouse, type WebGatehouse } from "../../lib/web/gatehouse"
import { startHighSecurityOp, type HighSecurityOp, type HsClient } from "../fixtures/oauth/high-security-op"
import { driveAuthorization } from "../fixtures/oauth/oidc-provider"
import { Browser, recordingLogger } from "../refresh/harness"

const APP = "http://app.test"
const CALLBACK = `${APP}/auth/callback/hs`
let strict: HighSecurityOp
let plain: HighSecurityOp

beforeAll(async () => {
  strict = await startHighSecurityOp({ redirectUri: CALLBACK, par: true, dpop: true })
  plain = await startHighSecurityOp({ redirectUri: CALLBACK, par: false, dpop: false })
})
afterAll(async () => {
  await strict.close()
  await plain.close()
})
beforeEach(() => {
  strict.recorded.length = 0
  plain.recorded.length = 0
})

function hsProvider(op: HighSecurityOp, clientId: HsClient, extra: Partial<OAuthConfig> = {}): OAuthConfig {
  return {
    id: "hs",
    name: "Bank",
    type: "oidc",
    issuer: op.issuer,
    clientId,
    client: { token_endpoint_auth_method: "private_key_jwt" },
    token: { clientPrivateKey: op.clientKey },
    allowInsecureRequests: true,
    checks: ["pkce", "state", "nonce"],
    [customFetch]: op.fetch,
    ...extra,
  }
}

/** A recording logger that also keeps the errors themselves, to compare their codes. */
function codedLogger() {
  const logger = recordingLogger()
  const errors: AuthError[] = []
  return {
    ...logger,
    errors,
    codes: () => errors.map((e) => e.code),
    error: (e: Error) => {
      if (e instanceof AuthError) errors.push(e)
      logger.error(e)
    },
  }
}

function app(provider: OAuthConfig, extra: Partial<AuthConfig> = {}) {
  const logger = codedLogger()
  const gh = Gatehouse({
    secret: "high-security-secret-0123456789abcdef0123456789",
    trustHost: true,
    providers: [provider],
    logger,
    ...extra,
  })
  return { gh, logger }
}

/** CSRF, then `POST /auth/signin/hs` as the sign-in page's form does. */
async function start(gh: WebGatehouse, browser: Browser): Promise<Response> {
  const csrf = (await gh.handle(browser.request("/auth/csrf")))!
  browser.absorb(csrf)
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const response = (await gh.handle(
    browser.request("/auth/signin/hs", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, callbackUrl: `${APP}/home` }),
    }),
  ))!
  browser.absorb(response)
  return response
}

/** A whole sign-in: start, the OP's pages, the callback, then the session. */
async function signIn(provider: OAuthConfig, extra: Partial<AuthConfig> = {}) {
  const { gh, logger } = app(provider, extra)
  const browser = new Browser()
  const started = await start(gh, browser)
  const authorization = new URL(started.headers.get("location") as string)
  let callbackLocation: string | null = null
  if (authorization.origin !== APP) {
    const delivery = await driveAuthorization(authorization.href, CALLBACK, { login: "alice" })
    const callback = (await gh.handle(browser.request(`/auth/callback/hs?${delivery.params}`)))!
    browser.absorb(callback)
    callbackLocation = callback.headers.get("location")
  }
  const sessionAnswer = (await gh.handle(browser.request("/auth/session")))!
  const sessionText = await sessionAnswer.text()
  const session = JSON.parse(sessionText) as { user?: { email?: string } } | null
  return { gh, logger, browser, authorization, callbackLocation, session, sessionText }
}

const assertion = (form: URLSearchParams | undefined) => {
  const jwt = form?.get("client_assertion") as string
  return { header: decodeProtectedHeader(jwt), claims: decodeJwt(jwt) }
}

describe("PAR", () => {
  test("HS1: par: true pushes once and the browser carries only client_id and request_uri", async () => {
    const { authorization, session, callbackLocation } = await signIn(hsProvider(strict, "par", { par: true }))
    const pushes = strict.at("/request")
    expect(pushes).toHaveLength(1)
    expect(pushes[0]?.status).toBe(201)
    expect(pushes[0]?.form?.get("code_challenge_method")).toBe("S256")
    expect(pushes[0]?.form?.get("redirect_uri")).toBe(CALLBACK)
    expect(pushes[0]?.form?.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
    expect([...authorization.searchParams.keys()].sort()).toEqual(["client_id", "request_uri"])
    expect(authorization.searchParams.get("request_uri")).toMatch(/^urn:ietf:params:oauth:request_uri:/)
    expect(callbackLocation).toBe(`${APP}/home`)
    expect(session?.user?.email).toBe("alice@bank.example")
  })

  test("HS2: par unset, the metadata requires PAR: the request is pushed all the same", async () => {
    const { authorization, session } = await signIn(hsProvider(strict, "par"))
    expect(strict.at("/request")).toHaveLength(1)
    expect([...authorization.searchParams.keys()].sort()).toEqual(["client_id", "request_uri"])
    expect(session?.user?.email).toBe("alice@bank.example")
  })

  test("HS3: par: false at the same OP goes front channel, the OP refuses, no session and no 5xx", async () => {
    // Control: HS1 signs in at this OP with par: true.
    const { gh, logger } = app(hsProvider(strict, "par", { par: false }))
    const browser = new Browser()
    const started = await start(gh, browser)
    const authorization = new URL(started.headers.get("location") as string)
    expect(strict.at("/request")).toHaveLength(0)
    expect(authorization.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/)
    expect(logger.lines).toContain("par-required-by-server")
    const redirect = await fetch(authorization, { redirect: "manual" })
    const back = new URL(redirect.headers.get("location") as string)
    expect(back.searchParams.get("error")).toBe("invalid_request")
    const callback = (await gh.handle(browser.request(`/auth/callback/hs?${back.searchParams}`)))!
    expect(callback.status).toBe(302)
    expect(callback.headers.get("location")).toContain("error=")
    const session = await (await gh.handle(browser.request("/auth/session")))!.json()
    expect(session).toBeNull()
  })

  test("HS4: par: true at an OP without PAR ends on the error page before the browser leaves", async () => {
    const { gh, logger } = app(hsProvider(plain, "par", { par: true }))
    const browser = new Browser()
    const started = await start(gh, browser)
    expect(started.status).toBe(302)
    expect(started.headers.get("location")).toBe(`${APP}/auth/error?error=Configuration`)
    expect(plain.recorded.filter((r) => r.url.pathname === "/auth")).toHaveLength(0)
    expect(logger.codes()).toEqual(["par_unavailable"])
    expect(await (await gh.handle(browser.request("/auth/session")))!.json()).toBeNull()
  })

  test("par_failed: an error answer to the push ends the sign-in with its OAuth error", async () => {
    // Control: HS1. The OP refuses a push asking for a prompt it does not support.
    const provider = hsProvider(strict, "par", { par: true, authorization: { params: { prompt: "unknown" } } })
    const { gh, logger } = app(provider)
    const started = await start(gh, new Browser())
    expect(started.headers.get("location")).toBe(`${APP}/auth/error?error=Configuration`)
    expect(strict.at("/request")[0]?.status).toBe(400)
    expect(logger.codes()).toEqual(["par_failed"])
    expect(logger.errors[0]?.cause).toMatchObject({ reason: "invalid_request", status: 400 })
  })

  test("HS5: private_key_jwt on the PAR and token requests: ES256, iss = sub = client_id, aud = issuer", async () => {
    await signIn(hsProvider(strict, "par", { par: true }))
    const forms = [...strict.at("/request"), ...strict.at("/token")].map((r) => r.form)
    expect(forms).toHaveLength(2)
    const jtis = new Set<unknown>()
    for (const form of forms) {
      expect(form?.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
      const { header, claims } = assertion(form)
      expect(header.alg).toBe("ES256")
      expect(claims.iss).toBe("par")
      expect(claims.sub).toBe("par")
      expect(claims.aud).toBe(strict.issuer)
      expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(300)
      jtis.add(claims.jti)
    }
    expect(jtis.size).toBe(2)
  })
})

describe("DPoP", () => {
  test("HS6: the token and userinfo requests carry proofs of one key, and the OP binds the token to it", async () => {
    const { session } = await signIn(hsProvider(strict, "dpop", { dpop: true, idToken: false }))
    expect(session?.user?.email).toBe("alice@bank.example")
    const [token] = strict.at("/token")
    const tokenProof = token?.headers.get("dpop") as string
    const header = decodeProtectedHeader(tokenProof)
    expect(header).toMatchObject({ typ: "dpop+jwt", alg: "ES256" })
    expect(header.jwk).toBeDefined()
    expect(header.jwk).not.toHaveProperty("d")
    const proof = decodeJwt(tokenProof)
    expect(proof).toMatchObject({ htm: "POST", htu: `${strict.issuer}/token` })
    expect(Math.abs((proof.iat as number) - Date.now() / 1000)).toBeLessThan(60)
    expect(token?.tokenType).toBe("DPoP")

    const userinfo = strict.at("/me")
    expect(userinfo).toHaveLength(1)
    const accessToken = token?.body?.access_token as string
    expect(userinfo[0]?.headers.get("authorization")).toBe(`DPoP ${accessToken}`)
    const uiProof = userinfo[0]?.headers.get("dpop") as string
    const ath = Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(accessToken))).toString(
      "base64url",
    )
    expect(decodeJwt(uiProof)).toMatchObject({ htm: "GET", htu: `${strict.issuer}/me`, ath })
    expect(decodeProtectedHeader(uiProof).jwk).toEqual(header.jwk)
    expect(userinfo[0]?.status).toBe(200)
    expect(await strict.jktOf(accessToken)).toBe(await calculateJwkThumbprint(header.jwk as never))
  })

  test("HS7: a token endpoint asking for a nonce gets exactly one retry carrying it", async () => {
    const { session } = await signIn(hsProvider(strict, "dpop-nonce", { dpop: true }))
    const tokens = strict.at("/token")
    expect(tokens).toHaveLength(2)
    expect(tokens[0]?.body?.error).toBe("use_dpop_nonce")
    const nonce = decodeJwt(tokens[1]?.headers.get("dpop") as string).nonce
    expect(typeof nonce).toBe("string")
    expect(tokens[1]?.status).toBe(200)
    expect(session?.user?.email).toBe("alice@bank.example")
  })

  test("the provider keeps the server's nonce: a later sign-in's first proof carries it, with no retry", async () => {
    const { gh, logger } = app(hsProvider(strict, "dpop-nonce", { dpop: true }), { debug: true })
    const flow = async () => {
      const browser = new Browser()
      const started = await start(gh, browser)
      const delivery = await driveAuthorization(started.headers.get("location") as string, CALLBACK, { login: "bob" })
      const callback = (await gh.handle(browser.request(`/auth/callback/hs?${delivery.params}`)))!
      expect(callback.headers.get("location")).toBe(`${APP}/home`)
    }
    await flow()
    expect(strict.at("/token")).toHaveLength(2)
    expect(logger.lines.some((l) => l.startsWith("dpop nonce retry") && l.includes(strict.issuer))).toBe(true)
    strict.recorded.length = 0
    await flow()
    const tokens = strict.at("/token")
    expect(tokens).toHaveLength(1)
    expect(typeof decodeJwt(tokens[0]?.headers.get("dpop") as string).nonce).toBe("string")
  })

  test("HS10: dpop: true at an OP answering Bearer tokens: no session, Configuration error", async () => {
    // Control: HS6 signs in with DPoP at the OP that binds.
    const { callbackLocation, session, logger } = await signIn(hsProvider(plain, "dpop", { dpop: true }))
    expect(plain.at("/token")[0]?.tokenType).toBe("Bearer")
    expect(callbackLocation).toBe(`${APP}/auth/error?error=Configuration`)
    expect(session).toBeNull()
    expect(logger.codes()).toEqual(["dpop_not_bound"])
  })
})

describe("JAR", () => {
  test("HS11: the pushed body carries a signed request object with every parameter", async () => {
    const provider = hsProvider(strict, "jar", { requestObject: { key: strict.clientKey, alg: "ES256" } })
    const { session } = await signIn(provider)
    expect(session?.user?.email).toBe("alice@bank.example")
    const [push] = strict.at("/request")
    const request = push?.form?.get("request") as string
    expect(decodeProtectedHeader(request)).toMatchObject({ typ: "oauth-authz-req+jwt", alg: "ES256" })
    const claims = decodeJwt(request)
    expect(claims).toMatchObject({
      iss: "jar",
      aud: strict.issuer,
      client_id: "jar",
      response_type: "code",
      redirect_uri: CALLBACK,
      code_challenge_method: "S256",
    })
    expect(String(claims.scope).split(" ")).toContain("openid")
    expect((claims.exp as number) - (claims.nbf as number)).toBeLessThanOrEqual(300)
    expect(claims.exp as number).toBeGreaterThan(Date.now() / 1000)
    expect(typeof claims.jti).toBe("string")
  })

  test("HS12: without PAR the authorization URL carries exactly client_id and request", async () => {
    const provider = hsProvider(plain, "jar", { requestObject: { key: plain.clientKey, alg: "ES256" } })
    const { authorization, session } = await signIn(provider)
    expect([...authorization.searchParams.keys()].sort()).toEqual(["client_id", "request"])
    expect(decodeJwt(authorization.searchParams.get("request") as string).aud).toBe(plain.issuer)
    expect(session?.user?.email).toBe("alice@bank.example")
  })
})

describe("fapi2", () => {
  test("HS13: profile fapi2 end to end: one push, DPoP on every token request, a DPoP-bound session", async () => {
    const { session } = await signIn(
      hsProvider(strict, "fapi", {
        securityProfile: "fapi2",
        client: {
          token_endpoint_auth_method: "private_key_jwt",
          id_token_signed_response_alg: "ES256",
        },
      }),
    )
    expect(session?.user?.email).toBe("alice@bank.example")
    expect(strict.at("/request")).toHaveLength(1)
    const tokens = strict.at("/token")
    expect(tokens.length).toBeGreaterThan(0)
    for (const token of tokens) expect(token.headers.get("dpop")).toBeTruthy()
    expect(assertion(tokens[0]?.form).claims.aud).toBe(strict.issuer)
    expect(tokens.at(-1)?.tokenType).toBe("DPoP")
  })
})

describe("construction", () => {
  const fapi = (extra: Partial<OAuthConfig> = {}) =>
    hsProvider(strict, "fapi", {
      securityProfile: "fapi2",
      client: { token_endpoint_auth_method: "private_key_jwt", id_token_signed_response_alg: "ES256" },
      ...extra,
    })
  const build = (provider: OAuthConfig) => () => app(provider)

  test("HS14: fapi2 refuses what FAPI 2.0 forbids, synchronously, each with its code", () => {
    expect(build(fapi())).not.toThrow()
    const cases: [Partial<OAuthConfig>, string][] = [
      [{ client: { token_endpoint_auth_method: "client_secret_basic" }, clientSecret: "s" }, "fapi2_client_auth"],
      [{ par: false }, "fapi2_par_required"],
      [{ dpop: false }, "fapi2_dpop_required"],
      [{ token: { clientPrivateKey: strict.rsaKey } }, "fapi2_alg"],
      [{ requestObject: { key: strict.rsaKey } }, "fapi2_alg"],
    ]
    for (const [extra, code] of cases) {
      expect(build(fapi(extra))).toThrow(expect.objectContaining({ type: "InvalidConfig", code }))
    }
  })

  test('HS14: fapi2 also refuses checks none, a redirect proxy and unsigned ID tokens; `profile: "fapi2"` works', () => {
    expect(build(fapi({ checks: ["none"] }))).toThrow(expect.objectContaining({ code: "fapi2_checks" }))
    expect(build(fapi({ redirectProxyUrl: "https://proxy.example/auth" }))).toThrow(
      expect.objectContaining({ code: "fapi2_redirect_proxy" }),
    )
    expect(build(fapi({ allowInsecureUnsignedIdTokens: true }))).toThrow(expect.objectContaining({ code: "fapi2_alg" }))
    const viaProfile = { ...fapi(), securityProfile: undefined, profile: "fapi2" } as unknown as OAuthConfig
    expect(build({ ...viaProfile, par: false })).toThrow(expect.objectContaining({ code: "fapi2_par_required" }))
  })

  test("HS15: valid options construct; a bad alg, key or type is refused with its code", () => {
    const ok = hsProvider(strict, "dpop", {
      dpop: { alg: "ES256" },
      requestObject: { key: strict.clientKey },
      par: true,
    })
    expect(build(ok)).not.toThrow()
    const cases: [Partial<OAuthConfig>, string][] = [
      [{ dpop: { alg: "HS256" as never } }, "dpop_alg_unsupported"],
      [{ requestObject: { key: "not-a-key" as never } }, "request_object_key_invalid"],
      [{ requestObject: { key: strict.clientKey, alg: "none" } }, "request_object_key_invalid"],
      [{ par: "yes" as never }, "invalid_provider_option"],
    ]
    for (const [extra, code] of cases) {
      expect(build(hsProvider(strict, "dpop", extra))).toThrow(expect.objectContaining({ type: "InvalidConfig", code }))
    }
  })

  test("jarm_unsupported: asking for signed authorization responses is refused, never ignored", () => {
    const jarm = hsProvider(strict, "par", {
      client: { token_endpoint_auth_method: "private_key_jwt", authorization_signed_response_alg: "ES256" },
    })
    expect(build(jarm)).toThrow(expect.objectContaining({ type: "InvalidConfig", code: "jarm_unsupported" }))
  })

  test("a public or symmetric request-object key, and an alg that does not fit the key, are refused", () => {
    const { d: _d, ...publicJwk } = strict.clientKey
    for (const requestObject of [
      { key: publicJwk },
      { key: { kty: "oct", k: "c2VjcmV0" } },
      { key: strict.clientKey, alg: "RS256" },
      { key: strict.clientKey, alg: "HS256" },
    ]) {
      expect(build(hsProvider(strict, "jar", { requestObject }))).toThrow(
        expect.objectContaining({ code: "request_object_key_invalid" }),
      )
    }
  })
})

describe("fapi2 at the callback", () => {
  test("missing_iss: a fapi2 authorization response without iss is refused", async () => {
    // Control: HS13 signs in with the same config.
    const provider = hsProvider(strict, "fapi", {
      securityProfile: "fapi2",
      client: { token_endpoint_auth_method: "private_key_jwt", id_token_signed_response_alg: "ES256" },
    })
    const { gh, logger } = app(provider)
    const browser = new Browser()
    const started = await start(gh, browser)
    const delivery = await driveAuthorization(started.headers.get("location") as string, CALLBACK, { login: "alice" })
    expect(delivery.params.has("iss")).toBe(true)
    const params = new URLSearchParams(delivery.params)
    params.delete("iss")
    const callback = (await gh.handle(browser.request(`/auth/callback/hs?${params}`)))!
    expect(callback.headers.get("location")).toBe(`${APP}/auth/error?error=Configuration`)
    expect(logger.codes()).toEqual(["missing_iss"])
    expect(strict.at("/token")).toHaveLength(0)
  })
})

describe("DPoP across refresh-token rotation", () => {
  const proofJkt = async (recorded: { headers: Headers } | undefined) =>
    calculateJwkThumbprint(decodeProtectedHeader(recorded?.headers.get("dpop") as string).jwk as never)

  test("HS8: JWT sessions: a forced refresh proves the sign-in's key and the new token stays bound to it", async () => {
    const { gh, browser, sessionText, session } = await signIn(
      hsProvider(strict, "dpop", { dpop: true, refresh: true }),
    )
    expect(session?.user?.email).toBe("alice@bank.example")
    expect(sessionText).not.toMatch(/"kty"|"crv"|"d":/)
    const signInJkt = await proofJkt(strict.at("/token")[0])
    strict.recorded.length = 0

    const request = browser.request("/api")
    const refreshed = await gh.getAccessToken(request, "hs", { force: true })
    browser.absorb(gh.applyCookies(request, new Response(null)))
    const refreshes = strict.at("/token")
    expect(refreshes).toHaveLength(1)
    expect(refreshes[0]?.form?.get("grant_type")).toBe("refresh_token")
    expect(await proofJkt(refreshes[0])).toBe(signInJkt)
    expect(refreshed?.tokenType).toBe("DPoP")
    expect(refreshed?.dpop?.jkt).toBe(signInJkt)
    const accessToken = refreshed?.accessToken as string
    expect(accessToken).toBe(refreshes[0]?.body?.access_token)
    expect(await strict.jktOf(accessToken)).toBe(signInJkt)

    const proof = await refreshed!.dpop!.proof("GET", `${strict.issuer}/me`)
    const me = await fetch(`${strict.issuer}/me`, { headers: { authorization: `DPoP ${accessToken}`, dpop: proof } })
    expect(me.status).toBe(200)
    const viaFetch = await refreshed!.dpop!.fetch(`${strict.issuer}/me`)
    expect(viaFetch.status).toBe(200)

    const again = await gh.getAccessToken(browser.request("/api"), "hs")
    expect(again?.accessToken).toBe(accessToken)
    expect(strict.at("/token")).toHaveLength(1)
    const after = await (await gh.handle(browser.request("/auth/session")))!.text()
    expect(after).not.toMatch(/"kty"|"crv"|"d":/)
  })

  test("HS9: database sessions: the key is sealed in accounts.dpop_key and reused by the refresh", async () => {
    const adapter = MemoryAdapter()
    const { gh, browser, session } = await signIn(hsProvider(strict, "dpop", { dpop: true, refresh: true }), {
      adapter,
      session: { strategy: "database" },
    })
    expect(session?.user?.email).toBe("alice@bank.example")
    const signInJkt = await proofJkt(strict.at("/token")[0])
    const account = (await adapter.getAccount("alice", "hs")) as Record<string, unknown>
    expect(String(account.dpop_key)).toMatch(/^gh1\./)
    expect(JSON.stringify(account)).not.toMatch(/"d":|"crv"/)
    expect(account.dpop_jkt).toBe(signInJkt)
    strict.recorded.length = 0

    const refreshed = await gh.getAccessToken(browser.request("/api"), "hs", { force: true })
    const [refresh] = strict.at("/token")
    expect(await proofJkt(refresh)).toBe(signInJkt)
    expect(refreshed?.dpop?.jkt).toBe(signInJkt)
    expect(await strict.jktOf(refreshed?.accessToken as string)).toBe(signInJkt)
    const stored = (await adapter.getAccount("alice", "hs")) as Record<string, unknown>
    expect(stored.access_token).toBe(refreshed?.accessToken)
    expect(stored.dpop_key).toBe(account.dpop_key)
  })

  test("dpop_key_unreadable: a stored key that does not open clears the tokens; the user signs in again", async () => {
    const adapter = MemoryAdapter()
    const { gh, browser } = await signIn(hsProvider(strict, "dpop", { dpop: true, refresh: true }), {
      adapter,
      session: { strategy: "database" },
    })
    // Control: HS9 refreshes with the same set-up. Here the sealed key is damaged.
    const account = (await adapter.getAccount("alice", "hs")) as Record<string, unknown>
    await adapter.unlinkAccount({ provider: "hs", providerAccountId: "alice" })
    await adapter.linkAccount({ ...account, dpop_key: "gh1.not-a-jwe" } as never)
    strict.recorded.length = 0
    await expect(gh.getAccessToken(browser.request("/api"), "hs", { force: true })).rejects.toMatchObject({
      type: "RefreshTokenError",
      cause: { reason: "no_refresh_token", code: "dpop_key_unreadable" },
    })
    expect(strict.at("/token")).toHaveLength(0)
    const cleared = (await adapter.getAccount("alice", "hs")) as Record<string, unknown>
    expect(cleared.access_token).toBeUndefined()
    expect(cleared.refresh_token).toBeUndefined()
  })
})

describe("oauth-par-ip", () => {
  test("the 21st start of a pushing provider within 60 s from one IP is refused before anything is pushed", async () => {
    const limited = { rateLimit: { enabled: true, ip: () => "198.51.100.7" } } satisfies Partial<AuthConfig>
    const { gh } = app(hsProvider(strict, "par", { par: true }), limited)
    const browser = new Browser()
    for (let i = 0; i < 20; i++) {
      const started = await start(gh, browser)
      expect(new URL(started.headers.get("location") as string).origin).toBe(strict.issuer)
    }
    expect(strict.at("/request")).toHaveLength(20)
    const refused = await start(gh, browser)
    expect(refused.headers.get("location")).toContain("error=RateLimited")
    expect(strict.at("/request")).toHaveLength(20)

    // Control: a provider that does not push is not counted by this rule.
    const front = app(hsProvider(plain, "par", { par: false }), limited)
    for (let i = 0; i < 21; i++) {
      const started = await start(front.gh, browser)
      expect(new URL(started.headers.get("location") as string).origin).toBe(plain.issuer)
    }
  })
})

describe("logs", () => {
  test("no proof, assertion, request object or key reaches the logger, with debug on", async () => {
    const logger = codedLogger()
    const provider = hsProvider(strict, "fapi", {
      securityProfile: "fapi2",
      client: { token_endpoint_auth_method: "private_key_jwt", id_token_signed_response_alg: "ES256" },
      requestObject: { key: strict.clientKey },
      refresh: true,
    })
    const { gh, browser, session } = await signIn(provider, { debug: true, logger })
    expect(session?.user?.email).toBe("alice@bank.example")
    await gh.getAccessToken(browser.request("/api"), "hs", { force: true })
    expect(logger.lines.some((l) => l.includes("pushed authorization request accepted"))).toBe(true)
    const secrets = new Set<string>([String(strict.clientKey.d)])
    for (const r of strict.recorded) {
      for (const value of [r.headers.get("dpop"), r.form?.get("client_assertion"), r.form?.get("request")]) {
        if (value) secrets.add(value)
      }
      for (const name of ["access_token", "refresh_token", "id_token"]) {
        if (typeof r.body?.[name] === "string") secrets.add(r.body[name] as string)
      }
    }
    expect(secrets.size).toBeGreaterThan(5)
    const all = logger.lines.join("\n")
    for (const secret of secrets) expect(all.includes(secret)).toBe(false)
    expect(all).not.toMatch(/"d":"/)
  })
})

test("dpop_adapter_unsupported: database sessions with DPoP need an adapter with updateAccountTokens", () => {
  const provider = hsProvider(strict, "dpop", { dpop: true })
  // Control: the same with the memory adapter, which has the method.
  expect(() => app(provider, { adapter: MemoryAdapter(), session: { strategy: "database" } })).not.toThrow()
  const { updateAccountTokens: _dropped, ...authjsShaped } = MemoryAdapter()
  expect(() => app(provider, { adapter: authjsShaped, session: { strategy: "database" } })).toThrow(
    expect.objectContaining({ type: "InvalidConfig", code: "dpop_adapter_unsupported" }),
  )
  expect(() => app(provider, { adapter: authjsShaped, session: { strategy: "jwt" } })).not.toThrow()
})

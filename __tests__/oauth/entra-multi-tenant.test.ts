// Microsoft Entra ID multi-tenant sign-in against a fake Entra made of real oidc-provider tenants: the templated
// issuer, each ID token held to the tenant its `tid` names, and `allowedTenants`.
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { LogoutTokenError, normalizeOAuthProvider, verifyLogoutToken } from "../../lib/oauth"
import { customFetch } from "../../lib/symbols"
import { InvalidConfig } from "../../lib/errors"
import MicrosoftEntraID, { type MicrosoftEntraIDUserConfig } from "../../lib/providers/microsoft-entra-id"
import { Gatehouse } from "../../lib/web/gatehouse"
import type { AuthConfig } from "../../lib/core/kernel/types"
import {
  CONSUMERS,
  ENTRA_CLIENT_ID,
  ENTRA_CLIENT_SECRET,
  startFakeEntra,
  TENANT_A,
  TENANT_B,
  TENANT_L,
  type FakeEntra,
} from "../fixtures/oauth/fake-entra"
import { driveAuthorization } from "../fixtures/oauth/oidc-provider"
import { Browser, recordingLogger } from "../refresh/harness"

const APP = "http://app.test"
const CALLBACK = `${APP}/auth/callback/microsoft-entra-id`
let entra: FakeEntra

beforeAll(async () => {
  entra = await startFakeEntra(CALLBACK)
})
afterAll(async () => {
  await entra.close()
})

function setup(options: MicrosoftEntraIDUserConfig, segment = "common") {
  const logger = recordingLogger()
  const adapter = MemoryAdapter()
  const provider = MicrosoftEntraID({
    issuer: `${entra.origin}/${segment}/v2.0`,
    clientId: ENTRA_CLIENT_ID,
    clientSecret: ENTRA_CLIENT_SECRET,
    allowInsecureRequests: true,
    ...options,
  })
  const config: AuthConfig = {
    secret: "entra-test-secret-0123456789abcdef0123456789",
    trustHost: true,
    providers: [provider],
    logger,
    adapter,
    session: { strategy: "jwt" },
  }
  return { gh: Gatehouse(config), logger, adapter }
}

/** Signs in at `tenant`; returns the callback's Location and the session afterwards. */
async function signInAt(tenant: string, options: MicrosoftEntraIDUserConfig, segment = "common") {
  entra.route(tenant)
  const { gh, logger, adapter } = setup(options, segment)
  const browser = new Browser()
  const start = await gh.signIn(browser.request("/", { method: "POST" }), "microsoft-entra-id", { redirect: true })
  browser.absorb(start)
  const authorization = start.headers.get("location") as string
  expect(authorization.startsWith(`${entra.origin}/${tenant}/v2.0/`)).toBe(true)
  const delivery = await driveAuthorization(authorization, CALLBACK, { login: "alice" })
  expect(delivery.params.has("iss")).toBe(false)
  const callback = (await gh.handle(browser.request(`/auth/callback/microsoft-entra-id?${delivery.params}`)))!
  browser.absorb(callback)
  const sessionAnswer = (await gh.handle(browser.request("/auth/session")))!
  const session = (await sessionAnswer.json()) as { user?: { name?: string; email?: string } } | null
  return { location: callback.headers.get("location"), session, logger, adapter }
}

describe("EN multi-tenant Entra", () => {
  test("EN1: a user of an allowed tenant signs in through common, with tenant A's name and email", async () => {
    const { location, session, adapter } = await signInAt(TENANT_A, { allowedTenants: [TENANT_A, TENANT_L] })
    expect(location).toBe(`${APP}/`)
    expect(session?.user).toMatchObject({ name: "alice of aaaa", email: "alice@aaaa.example" })
    expect(await adapter.getUserByEmail("alice@aaaa.example")).not.toBeNull()
  })

  test("EN2: a user of another tenant is refused with AccessDenied and nothing is written", async () => {
    // Control: the same flow from tenant A signs in (EN1).
    const control = await signInAt(TENANT_A, { allowedTenants: [TENANT_A] })
    expect(control.session?.user?.email).toBe("alice@aaaa.example")

    const { location, session, logger, adapter } = await signInAt(TENANT_B, { allowedTenants: [TENANT_A, TENANT_L] })
    expect(location).toBe(`${APP}/auth/error?error=AccessDenied`)
    expect(session).toBeNull()
    expect(await adapter.getUserByEmail("alice@bbbb.example")).toBeNull()
    expect(logger.lines).toContain("entra-tenant-refused")
  })

  test("EN3: a token whose iss names tenant L and whose tid names A is refused, both tenants allowed", async () => {
    const control = await signInAt(TENANT_A, { allowedTenants: [TENANT_A, TENANT_L] })
    expect(control.session?.user?.email).toBe("alice@aaaa.example")

    const { location, session, logger } = await signInAt(TENANT_L, { allowedTenants: [TENANT_A, TENANT_L] })
    expect(location).toBe(`${APP}/auth/error?error=Configuration`)
    expect(session).toBeNull()
    expect(logger.lines.some((line) => line.startsWith("OAuthProtocolError") && line.includes("iss and tid"))).toBe(
      true,
    )
  })

  test("EN4: a function allow-list is awaited with the tenant id and the validated claims", async () => {
    const calls: { tid: string; claims: Record<string, unknown> }[] = []
    const allowedTenants = async (tid: string, claims: Record<string, unknown>) => {
      calls.push({ tid, claims })
      return tid === TENANT_A
    }
    const a = await signInAt(TENANT_A, { allowedTenants })
    expect(a.session?.user?.email).toBe("alice@aaaa.example")
    expect(calls).toHaveLength(1)
    expect(calls[0]?.tid).toBe(TENANT_A)
    expect(calls[0]?.claims).toMatchObject({ tid: TENANT_A, iss: `${entra.origin}/${TENANT_A}/v2.0` })

    const b = await signInAt(TENANT_B, { allowedTenants })
    expect(b.location).toBe(`${APP}/auth/error?error=AccessDenied`)
    expect(b.session).toBeNull()
  })

  test("EN4: an allow-list function that throws counts as a refusal, logged as an error", async () => {
    const boom = new Error("tenant directory down")
    const { location, session, logger } = await signInAt(TENANT_A, {
      allowedTenants: () => {
        throw boom
      },
    })
    expect(location).toBe(`${APP}/auth/error?error=AccessDenied`)
    expect(session).toBeNull()
    expect(logger.lines.some((line) => line.includes("tenant directory down"))).toBe(true)
  })

  test("EN5: in production common and organizations need allowedTenants; consumers and one tenant do not", () => {
    const build = (options: MicrosoftEntraIDUserConfig) =>
      Gatehouse({
        secret: "s".repeat(40),
        trustHost: true,
        providers: [MicrosoftEntraID({ clientId: "id", clientSecret: "secret", ...options })],
      })
    const saved = process.env.NODE_ENV
    process.env.NODE_ENV = "production"
    try {
      productionRules(build)
    } finally {
      process.env.NODE_ENV = saved
    }
  })

  function productionRules(build: (options: MicrosoftEntraIDUserConfig) => unknown): void {
    for (const tenantId of ["common", "organizations"]) {
      const run = () => build({ tenantId })
      expect(run).toThrow(InvalidConfig)
      expect(run).toThrow(expect.objectContaining({ code: "entra_allowed_tenants_required" }))
      expect(run).toThrow(
        "MicrosoftEntraID: multi-tenant sign-in needs allowedTenants in production (a list of tenant ids, or a function)",
      )
    }
    expect(() => build({ tenantId: "common", allowedTenants: [TENANT_A] })).not.toThrow()
    expect(() => build({ tenantId: "common", allowedTenants: () => true })).not.toThrow()
    expect(() => build({ tenantId: "consumers" })).not.toThrow()
    expect(() => build({ tenantId: TENANT_A })).not.toThrow()
  }

  test("EN5: outside production an open multi-tenant config warns entra-any-tenant", () => {
    const logger = recordingLogger()
    Gatehouse({
      secret: "s".repeat(40),
      trustHost: true,
      logger,
      providers: [MicrosoftEntraID({ clientId: "id", clientSecret: "secret" })],
    })
    expect(logger.lines).toContain("entra-any-tenant")
  })
})

describe("Entra tenant rules", () => {
  test("organizations refuses the consumer tenant", async () => {
    const control = await signInAt(TENANT_A, { allowedTenants: () => true }, "organizations")
    expect(control.session?.user?.email).toBe("alice@aaaa.example")
    const { location, session } = await signInAt(CONSUMERS, { allowedTenants: () => true }, "organizations")
    expect(location).toBe(`${APP}/auth/error?error=AccessDenied`)
    expect(session).toBeNull()
  })

  test("consumers signs in personal accounts and refuses a token of another tenant", async () => {
    const control = await signInAt(CONSUMERS, {}, "consumers")
    expect(control.session?.user?.email).toBe("alice@9188.example")
    const { location, session } = await signInAt(TENANT_A, {}, "consumers")
    expect(location).toBe(`${APP}/auth/error?error=Configuration`)
    expect(session).toBeNull()
  })

  test("metadata announcing anything but the template is refused before the browser leaves", async () => {
    entra.route(TENANT_A)
    // `common` announcing one tenant's issuer instead of the template.
    entra.announce(`${entra.origin}/${TENANT_A}/v2.0`)
    const { gh } = setup({ allowedTenants: [TENANT_A] })
    try {
      // The server-side signIn() throws what the route would log before redirecting to the error page.
      await expect(
        gh.signIn(new Request(`${APP}/`, { method: "POST" }), "microsoft-entra-id", { redirect: true }),
      ).rejects.toMatchObject({ type: "OAuthProtocolError", cause: { attribute: "issuer" } })
    } finally {
      entra.announce(undefined)
    }
  })

  test("an issuer that is not <authority>/<tenant>/v2.0 is refused by the factory", () => {
    expect(() => MicrosoftEntraID({ issuer: "https://login.microsoftonline.com/common" })).toThrow(
      expect.objectContaining({ code: "entra_issuer_invalid" }),
    )
  })
})

describe("Entra back-channel logout tokens", () => {
  const AUTHORITY = "https://login.entra.example"
  async function setup() {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true })
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" }
    const metadata = {
      issuer: `${AUTHORITY}/{tenantid}/v2.0`,
      authorization_endpoint: `${AUTHORITY}/common/oauth2/v2.0/authorize`,
      token_endpoint: `${AUTHORITY}/common/oauth2/v2.0/token`,
      jwks_uri: `${AUTHORITY}/common/discovery/v2.0/keys`,
      id_token_signing_alg_values_supported: ["ES256"],
    }
    const serve = (async (input: string | URL | Request) => {
      const url = String(input instanceof Request ? input.url : input)
      if (url.endsWith("/.well-known/openid-configuration")) return Response.json(metadata)
      if (url === metadata.jwks_uri) return Response.json({ keys: [jwk] })
      return new Response("unexpected", { status: 599 })
    }) as typeof fetch
    const { options, ...defaults } = MicrosoftEntraID({
      issuer: `${AUTHORITY}/common/v2.0`,
      clientId: "app",
      clientSecret: "secret",
      allowedTenants: [TENANT_A],
      logout: { backchannel: true },
      [customFetch]: serve,
    })
    const provider = normalizeOAuthProvider({ ...defaults, ...options }, {})
    const token = (claims: Record<string, unknown>) =>
      new SignJWT({ events: { "http://schemas.openid.net/event/backchannel-logout": {} }, sub: "s1", ...claims })
        .setProtectedHeader({ alg: "ES256", kid: "k1", typ: "logout+jwt" })
        .setAudience("app")
        .setIssuedAt()
        .setExpirationTime("2m")
        .setJti(crypto.randomUUID())
        .sign(privateKey)
    return { provider, token }
  }

  test("a token is held to its own tenant's issuer, and the tenant must still be allowed", async () => {
    const { provider, token } = await setup()
    const ok = await verifyLogoutToken(provider, await token({ iss: `${AUTHORITY}/${TENANT_A}/v2.0`, tid: TENANT_A }))
    expect(ok).toMatchObject({ iss: `${AUTHORITY}/${TENANT_A}/v2.0`, sub: "s1" })
    await expect(
      verifyLogoutToken(provider, await token({ iss: `${AUTHORITY}/${TENANT_B}/v2.0`, tid: TENANT_B })),
    ).rejects.toThrow("tenant not allowed")
    await expect(
      verifyLogoutToken(provider, await token({ iss: `${AUTHORITY}/${TENANT_L}/v2.0`, tid: TENANT_A })),
    ).rejects.toThrow("unexpected iss")
    await expect(verifyLogoutToken(provider, await token({ iss: `${AUTHORITY}/{tenantid}/v2.0` }))).rejects.toThrow(
      "unexpected iss",
    )
  })

  test("a bad signature is one coded refusal: the message names the check, the library's code stays in the cause", async () => {
    const { provider, token } = await setup()
    const good = await token({ iss: `${AUTHORITY}/${TENANT_A}/v2.0`, tid: TENANT_A })
    const [header, payload, signature] = good.split(".") as [string, string, string]
    const flipped = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith("A") ? "BB" : "AA"}`
    const error = await verifyLogoutToken(provider, flipped).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LogoutTokenError)
    expect((error as Error).message).toBe("invalid signature")
    expect((error as Error).cause).toMatchObject({
      type: "OAuthProtocolError",
      cause: { code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED", provider: provider.id },
    })
  })
})

// Every catalogue provider through Auth(): csrf → POST /signin/:id → 302 to its authorization endpoint with the
// code-flow parameters, PKCE S256, the provider's scope and checks, and sealed check cookies.
import { readdirSync } from "node:fs"
import { basename, join } from "node:path"
import { parseSetCookie, type SetCookie } from "cookie"
import { Auth } from "../../lib/core"
import type { AuthConfig } from "../../lib/core/kernel/types"
import type { OAuthConfig } from "../../lib/providers/types"
import { customFetch } from "../../lib/symbols"
import { testLogger } from "../core/helpers"

const ORIGIN = "https://app.example"
const SECRET = "authorization-url-secret-0123456789abcdef"
const CLIENT_ID = "client-id-0123"
const CLIENT_SECRET = "client-secret-0123456789"
const DEFAULT_SCOPE = "openid profile email"

/** Files of lib/providers that are not OAuth/OIDC catalogue providers. */
const NOT_OAUTH = ["types", "credentials", "email", "email-message", "nodemailer", "webauthn", "passkey", "password"]
const providersDir = join(__dirname, "../../lib/providers")
const catalogue = readdirSync(providersDir)
  .filter((file) => file.endsWith(".ts"))
  .map((file) => basename(file, ".ts"))
  .filter((name) => !NOT_OAUTH.includes(name))
  .sort()

interface Expected {
  /** Authorization endpoint (origin + path) the browser must be sent to. */
  endpoint: string
  scope: string
  state?: true
  nonce?: true
  /** Other query parameters the provider adds. */
  extra?: Record<string, string>
  /**
   * Set when the endpoint comes from discovery: the issuer (the provider's default, or `configure`d) whose
   * `.well-known/openid-configuration` answers with `endpoint`.
   */
  discover?: { issuer: string; configure?: true }
  /** The issuer is configured, but the endpoints are paths on it: nothing is discovered. */
  noDiscovery?: true
}

/** Invented per-tenant issuers for the providers that have no default, and the endpoints their metadata names. */
const tenant = (issuer: string, endpoint: string, scope = DEFAULT_SCOPE): Expected => ({
  endpoint,
  scope,
  discover: { issuer, configure: true },
})
/** Default issuer; the fake metadata names an authorization endpoint of our choosing on the same host. */
const discovered = (
  issuer: string,
  endpoint: string,
  scope = DEFAULT_SCOPE,
  more: Partial<Expected> = {},
): Expected => ({
  endpoint,
  scope,
  discover: { issuer },
  ...more,
})

const expected: Record<string, Expected> = {
  apple: discovered("https://appleid.apple.com", "https://appleid.apple.com/auth/authorize-x", "name email", {
    state: true,
    nonce: true,
    extra: { response_mode: "form_post" },
  }),
  atlassian: {
    endpoint: "https://auth.atlassian.com/authorize",
    scope: "read:me",
    extra: { audience: "api.atlassian.com", prompt: "consent" },
  },
  auth0: tenant("https://tenant.eu.auth0.example/", "https://tenant.eu.auth0.example/authorize-x"),
  authentik: tenant("https://sso.example/application/o/app/", "https://sso.example/application/o/authorize-x/"),
  bitbucket: { endpoint: "https://bitbucket.org/site/oauth2/authorize", scope: "account email" },
  cognito: tenant(
    "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool",
    "https://pool.auth.eu-west-1.amazoncognito.example/oauth2/authorize-x",
  ),
  discord: { endpoint: "https://discord.com/oauth2/authorize", scope: "identify email" },
  dropbox: { endpoint: "https://www.dropbox.com/oauth2/authorize", scope: "account_info.read" },
  facebook: { endpoint: "https://www.facebook.com/v21.0/dialog/oauth", scope: "email" },
  github: { endpoint: "https://github.com/login/oauth/authorize", scope: "read:user user:email" },
  gitlab: { endpoint: "https://gitlab.com/oauth/authorize", scope: "read_user" },
  google: discovered("https://accounts.google.com", "https://accounts.google.com/o/oauth2/v2/auth-x"),
  keycloak: tenant("https://kc.example/realms/demo", "https://kc.example/realms/demo/protocol/openid-connect/auth-x"),
  linkedin: discovered(
    "https://www.linkedin.com/oauth",
    "https://www.linkedin.com/oauth/v2/authorization-x",
    DEFAULT_SCOPE,
    {
      state: true,
    },
  ),
  "microsoft-entra-id": {
    ...tenant(
      "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0",
      "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/oauth2/v2.0/authorize-x",
    ),
    scope: "openid profile email User.Read",
  },
  // Notion names no scope, so the reference's default `openid profile email` is added (reference 6.1).
  notion: { endpoint: "https://api.notion.com/v1/oauth/authorize", scope: DEFAULT_SCOPE, extra: { owner: "user" } },
  oidc: tenant("https://op.example", "https://op.example/authorize-x"),
  okta: {
    ...tenant("https://dev-1.okta.example/oauth2/default", "https://dev-1.okta.example/oauth2/default/v1/authorize-x"),
    state: true,
  },
  osu: { endpoint: "https://osu.ppy.sh/oauth/authorize", scope: "identify" },
  patreon: { endpoint: "https://www.patreon.com/oauth2/authorize", scope: "identity identity[email]" },
  reddit: { endpoint: "https://www.reddit.com/api/v1/authorize", scope: "identity", state: true },
  salesforce: discovered(
    "https://login.salesforce.com",
    "https://login.salesforce.com/services/oauth2/authorize-x",
    DEFAULT_SCOPE,
    { state: true, nonce: true },
  ),
  slack: discovered("https://slack.com", "https://slack.com/openid/connect/authorize-x", DEFAULT_SCOPE, {
    nonce: true,
  }),
  spotify: { endpoint: "https://accounts.spotify.com/authorize", scope: "user-read-email" },
  strava: { endpoint: "https://www.strava.com/oauth/authorize", scope: "read" },
  twitch: discovered(
    "https://id.twitch.tv/oauth2",
    "https://id.twitch.tv/oauth2/authorize-x",
    "openid user:read:email",
    {
      extra: {
        claims: JSON.stringify({
          id_token: { email: null, email_verified: null, picture: null, preferred_username: null },
        }),
      },
    },
  ),
  twitter: {
    endpoint: "https://x.com/i/oauth2/authorize",
    scope: "users.read tweet.read offline.access",
    state: true,
  },
  yandex: { endpoint: "https://oauth.yandex.ru/authorize", scope: "login:info login:email login:avatar" },
  zitadel: tenant("https://my-instance.zitadel.example", "https://my-instance.zitadel.example/oauth/v2/authorize-x"),
  zoom: { endpoint: "https://zoom.us/oauth/authorize", scope: "user:read:user" },
  "42-school": { endpoint: "https://api.intra.42.fr/oauth/authorize", scope: "public" },
  amazon: { endpoint: "https://www.amazon.com/ap/oa", scope: "profile" },
  "azure-ad-b2c": tenant("https://contoso.b2clogin.example/tid/v2.0/", "https://contoso.b2clogin.example/authorize-x"),
  battlenet: tenant("https://oauth.battle.example", "https://oauth.battle.example/authorize-x"),
  box: { endpoint: "https://account.box.com/api/oauth2/authorize", scope: DEFAULT_SCOPE },
  descope: {
    ...tenant("https://api.descope.example/P123", "https://api.descope.example/oauth2/v1/authorize-x", DEFAULT_SCOPE),
    state: true,
  },
  docusign: { endpoint: "https://account.docusign.com/oauth/auth", scope: "signature" },
  figma: { endpoint: "https://www.figma.com/oauth", scope: "files:read", state: true },
  fusionauth: {
    ...tenant(
      "https://auth.fusion.example",
      "https://auth.fusion.example/oauth2/authorize-x",
      "openid offline_access email profile",
    ),
    state: true,
  },
  hubspot: { endpoint: "https://app.hubspot.com/oauth/authorize", scope: "oauth" },
  huggingface: discovered("https://huggingface.co", "https://huggingface.co/oauth/authorize-x", DEFAULT_SCOPE, {
    state: true,
  }),
  instagram: { endpoint: "https://www.instagram.com/oauth/authorize", scope: "instagram_business_basic" },
  kakao: { endpoint: "https://kauth.kakao.com/oauth/authorize", scope: "" },
  kick: { endpoint: "https://id.kick.com/oauth/authorize", scope: "user:read" },
  line: discovered("https://access.line.me", "https://access.line.me/oauth2/v2.1/authorize-x", DEFAULT_SCOPE, {
    state: true,
  }),
  linear: { endpoint: "https://linear.app/oauth/authorize", scope: "read" },
  mailru: { endpoint: "https://oauth.mail.ru/login", scope: "userinfo" },
  mastodon: {
    endpoint: "https://mastodon.example/oauth/authorize",
    scope: "read",
    discover: { issuer: "https://mastodon.example", configure: true },
    noDiscovery: true,
  },
  naver: { endpoint: "https://nid.naver.com/oauth2.0/authorize", scope: DEFAULT_SCOPE },
  onelogin: tenant("https://acme.onelogin.example/oidc/2", "https://acme.onelogin.example/oidc/2/auth-x"),
  orcid: discovered("https://orcid.org", "https://orcid.org/oauth/authorize-x", "openid"),
  paypal: { endpoint: "https://www.paypal.com/signin/authorize", scope: "openid email profile" },
  "ping-id": tenant("https://auth.ping.example/env/as", "https://auth.ping.example/env/as/authorize-x"),
  pinterest: { endpoint: "https://www.pinterest.com/oauth", scope: "user_accounts:read" },
  roblox: discovered(
    "https://apis.roblox.com/oauth/",
    "https://apis.roblox.com/oauth/v1/authorize-x",
    "openid profile",
    {
      state: true,
    },
  ),
  snapchat: {
    endpoint: "https://accounts.snapchat.com/accounts/oauth2/auth",
    scope: ["display_name", "bitmoji.avatar", "external_id"]
      .map((n) => `https://auth.snapchat.com/oauth2/api/user.${n}`)
      .join(" "),
  },
  tiktok: {
    endpoint: "https://www.tiktok.com/v2/auth/authorize",
    scope: "user.info.basic",
    extra: { client_key: CLIENT_ID },
  },
  vercel: { endpoint: "https://vercel.com/oauth/authorize", scope: "openid email profile" },
  vk: { endpoint: "https://oauth.vk.com/authorize", scope: "email", extra: { v: "5.131" } },
  wechat: {
    endpoint: "https://open.weixin.qq.com/connect/oauth2/authorize",
    scope: "snsapi_userinfo",
    state: true,
    extra: { appid: CLIENT_ID },
  },
  wordpress: { endpoint: "https://public-api.wordpress.com/oauth2/authorize", scope: "auth" },
  workos: { endpoint: "https://api.workos.com/sso/authorize", scope: DEFAULT_SCOPE, extra: { connection: "" } },
  yahoo: discovered(
    "https://api.login.yahoo.com",
    "https://api.login.yahoo.com/oauth2/request_auth-x",
    "openid email profile",
  ),
}

/**
 * A `fetch` that answers only the discovery request of `issuer` (its metadata naming `advertised` as the issuer, by
 * default `issuer` itself); every other request is a test failure.
 */
function discoveryFetch(
  issuer: string | undefined,
  authorizationEndpoint: string,
  calls: string[],
  advertised = issuer,
): typeof fetch {
  return async (input) => {
    const url = String(input instanceof Request ? input.url : input)
    calls.push(url)
    const wellKnown = issuer ? `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration` : undefined
    if (url !== wellKnown) return new Response("unexpected request", { status: 599 })
    const metadata = {
      issuer: advertised,
      authorization_endpoint: authorizationEndpoint,
      token_endpoint: `${new URL(authorizationEndpoint).origin}/token-x`,
      jwks_uri: `${new URL(authorizationEndpoint).origin}/jwks-x`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
    }
    return Response.json(metadata)
  }
}

/** Cookies of the browser, as sent back in a Cookie header. */
function cookieHeader(cookies: SetCookie[]): string {
  return cookies.map((c) => `${c.name}=${c.value}`).join("; ")
}

async function startSignIn(config: AuthConfig, id: string): Promise<{ response: Response; cookies: SetCookie[] }> {
  const csrfResponse = await Auth(new Request(`${ORIGIN}/auth/csrf`), config)
  expect(csrfResponse.status).toBe(200)
  const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string }
  const csrfCookies = csrfResponse.headers.getSetCookie().map((line) => parseSetCookie(line))
  const response = await Auth(
    new Request(`${ORIGIN}/auth/signin/${id}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(csrfCookies) },
      body: new URLSearchParams({ csrfToken, callbackUrl: `${ORIGIN}/after` }),
    }),
    config,
  )
  return { response, cookies: response.headers.getSetCookie().map((line) => parseSetCookie(line)) }
}

test("the table covers exactly the catalogue", () => {
  expect(catalogue.length).toBeGreaterThanOrEqual(25)
  expect(Object.keys(expected).sort()).toEqual(catalogue)
})

describe.each(catalogue)("%s", (name) => {
  test("POST /signin/:id redirects to its authorization endpoint with the code-flow parameters", async () => {
    const want = expected[name]
    const mod = (await import(join(providersDir, name))) as { default: (options: object) => OAuthConfig }
    const calls: string[] = []
    const options: Record<string | symbol, unknown> = {
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      [customFetch]: discoveryFetch(want.discover?.issuer, want.endpoint, calls),
    }
    if (want.discover?.configure) options.issuer = want.discover.issuer
    const provider = mod.default(options)
    const logger = testLogger()
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [provider], logger }

    const { response, cookies } = await startSignIn(config, provider.id)
    expect(logger.errors).toEqual([])
    expect(response.status).toBe(302)
    const location = new URL(response.headers.get("location") as string)
    expect(`${location.origin}${location.pathname}`).toBe(want.endpoint)
    if (want.discover && !want.noDiscovery) {
      expect(calls).toEqual([`${want.discover.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`])
    } else {
      expect(calls).toEqual([])
    }

    // Without discovered metadata advertising S256, a one-time state is added on top of PKCE (RFC 9700 2.1.1).
    const wantState = want.state === true || !want.discover || want.noDiscovery === true
    const query = location.searchParams
    expect(query.get("response_type")).toBe("code")
    expect(query.get("client_id")).toBe(CLIENT_ID)
    expect(query.get("redirect_uri")).toBe(`${ORIGIN}/auth/callback/${provider.id}`)
    expect(query.get("scope")).toBe(want.scope)
    expect(query.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(query.get("code_challenge_method")).toBe("S256")
    for (const [key, value] of Object.entries(want.extra ?? {})) expect(query.get(key)).toBe(value)
    expect(query.has("state")).toBe(wantState)
    expect(query.has("nonce")).toBe(want.nonce === true)
    expect(query.has("client_secret")).toBe(false)

    // One sealed, secure, http-only cookie per check, alive for 900 s.
    const byName = new Map(cookies.map((c) => [c.name, c]))
    const checkCookies = [
      "__Secure-authjs.pkce.code_verifier",
      ...(wantState ? ["__Secure-authjs.state"] : []),
      ...(want.nonce ? ["__Secure-authjs.nonce"] : []),
    ]
    for (const cookieName of checkCookies) {
      const cookie = byName.get(cookieName)
      expect(cookie).toMatchObject({ httpOnly: true, secure: true, path: "/", maxAge: 900 })
      // A compact JWE: five base64url parts; the PKCE verifier itself never appears in the URL.
      expect((cookie?.value ?? "").split(".")).toHaveLength(5)
    }
    expect(byName.has("__Secure-authjs.state")).toBe(wantState)
    expect(byName.has("__Secure-authjs.nonce")).toBe(want.nonce === true)
    expect(byName.has("__Secure-authjs.session-token")).toBe(false)
  })
})

// Microsoft's multi-tenant endpoints name another issuer in their metadata than the URL they are fetched from: `common`
// and `organizations` a template (`https://login.microsoftonline.com/{tenantid}/v2.0`), `consumers` the consumer
// tenant's id. Gatehouse accepts exactly that issuer (each ID token is then held to its own tenant) and nothing else.
describe("microsoft-entra-id multi-tenant metadata", () => {
  const template = "https://login.microsoftonline.com/{tenantid}/v2.0"
  const consumer = "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0"
  const cases = [
    ["common (the default)", undefined, template, true],
    ["organizations", "organizations", template, true],
    ["consumers", "consumers", consumer, true],
    ["common naming itself", undefined, "https://login.microsoftonline.com/common/v2.0", false],
    ["organizations naming the consumer tenant", "organizations", consumer, false],
    ["consumers naming the template", "consumers", template, false],
  ] as const
  test.each(cases)("%s", async (_, tenantId, named, accepted) => {
    const mod = (await import(join(providersDir, "microsoft-entra-id"))) as {
      default: (options: object) => OAuthConfig
    }
    const issuer = `https://login.microsoftonline.com/${tenantId ?? "common"}/v2.0`
    const endpoint = `https://login.microsoftonline.com/${tenantId ?? "common"}/authorize-x`
    const calls: string[] = []
    const provider = mod.default({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      allowedTenants: ["72f988bf-86f1-41af-91ab-2d7cd011db47"],
      ...(tenantId ? { tenantId } : {}),
      [customFetch]: discoveryFetch(issuer, endpoint, calls, named),
    })
    const logger = testLogger()
    const { response, cookies } = await startSignIn(
      { secret: SECRET, trustHost: true, providers: [provider], logger },
      provider.id,
    )
    expect(calls).toEqual([`${issuer}/.well-known/openid-configuration`])
    expect(response.status).toBe(302)
    const location = response.headers.get("location") as string
    if (accepted) {
      expect(location.startsWith(`${endpoint}?`)).toBe(true)
      expect(logger.errors).toEqual([])
      return
    }
    expect(location).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(cookies.map((c) => c.name).filter((n) => n.includes("pkce") || n.includes("state"))).toEqual([])
    expect(logger.errors).toHaveLength(1)
    expect(logger.errors[0]).toMatchObject({
      name: "OAuthProtocolError",
      cause: { attribute: "issuer", provider: "microsoft-entra-id" },
    })
  })
})

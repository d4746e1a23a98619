// OI-proxy-host (issue 11, High): the redirect proxy forwards a victim's code only to configured origins.
import { Auth } from "../../lib/core"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { encode } from "../../lib/jwt"
import { STATE_SALT } from "../../lib/oauth"
import { applyCookies, csrf, makeRequest, testLogger } from "../core/helpers"

const SECRET = "proxy-secret-0123456789abcdef0123456789abcdef"
const PROXY = "https://auth.app.example"
const PREVIEW = "https://pr-7.preview.app.example"
const EVIL = "https://evil.example"

function config(allowed?: string[]): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    redirectProxyUrl: `${PROXY}/auth`,
    ...(allowed ? { redirectProxyAllowedOrigins: allowed } : {}),
    logger: testLogger(),
    providers: [
      {
        id: "op",
        name: "OP",
        type: "oauth",
        authorization: "https://op.example/authorize",
        token: "https://op.example/token",
        userinfo: "https://op.example/userinfo",
        clientId: "client",
        clientSecret: "client-secret",
      },
    ],
  }
}

/** POST /auth/signin/op on a deployment reached as `origin` (the Host header of the request). */
async function startSignIn(cfg: AuthConfig, origin: string): Promise<Response> {
  const { token, cookies } = await csrf(cfg, origin)
  return Auth(makeRequest("/auth/signin/op", { origin, cookies, body: { csrfToken: token } }), cfg)
}

async function stateFor(callbackUrl: string): Promise<string> {
  return encode({ token: { random: "r", origin: callbackUrl }, secret: SECRET, salt: STATE_SALT, maxAge: 900 })
}

describe("OI-proxy-host", () => {
  const saved = process.env.AUTH_URL
  beforeAll(() => delete process.env.AUTH_URL)
  afterAll(() => {
    if (saved !== undefined) process.env.AUTH_URL = saved
  })

  it("a sign-in started with a forged Host gets no state for that host (the start is refused)", async () => {
    const cfg = config([PREVIEW])
    const response = await startSignIn(cfg, EVIL)
    expect(response.status).toBe(302)
    const location = response.headers.get("location") as string
    expect(location).toBe(`${EVIL}/auth/signin?error=Configuration`)
    expect(applyCookies({}, response)["authjs.state"]).toBeUndefined()
  })

  it("the proxy refuses to forward a code to an origin the configuration does not name", async () => {
    const cfg = config([PREVIEW, "https://*.preview.app.example"])
    for (const target of [EVIL, "https://a.b.preview.app.example", "https://preview.app.example.evil.example"]) {
      const state = await stateFor(`${target}/auth/callback/op`)
      const response = await Auth(
        makeRequest(`/auth/callback/op?code=victim-code&state=${state}`, { origin: PROXY }),
        cfg,
      )
      const location = response.headers.get("location") as string
      expect(location).toBe(`${PROXY}/auth/error?error=Configuration`)
      expect(location).not.toContain("victim-code")
    }
  })

  it("without any allowed origin the proxy forwards nowhere", async () => {
    const state = await stateFor(`${PREVIEW}/auth/callback/op`)
    const response = await Auth(makeRequest(`/auth/callback/op?code=c&state=${state}`, { origin: PROXY }), config())
    expect(response.headers.get("location")).toBe(`${PROXY}/auth/error?error=Configuration`)
  })

  it("an allowed preview (exact or by pattern) starts through the proxy and gets its code forwarded", async () => {
    const cfg = config(["https://*.preview.app.example"])
    const start = await startSignIn(cfg, PREVIEW)
    const authorize = new URL(start.headers.get("location") as string)
    expect(authorize.origin).toBe("https://op.example")
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${PROXY}/auth/callback/op`)
    const state = authorize.searchParams.get("state") as string
    const hop = await Auth(makeRequest(`/auth/callback/op?code=c&state=${state}`, { origin: PROXY }), cfg)
    const forwarded = new URL(hop.headers.get("location") as string)
    expect(`${forwarded.origin}${forwarded.pathname}`).toBe(`${PREVIEW}/auth/callback/op`)
    expect(forwarded.searchParams.get("code")).toBe("c")
  })

  it("with AUTH_URL the deployment's origin is configured and the start is allowed", async () => {
    process.env.AUTH_URL = `${PREVIEW}/auth`
    try {
      const response = await startSignIn(config(), EVIL)
      const authorize = new URL(response.headers.get("location") as string)
      expect(authorize.origin).toBe("https://op.example")
    } finally {
      delete process.env.AUTH_URL
    }
  })
})

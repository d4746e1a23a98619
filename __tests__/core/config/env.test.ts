import { createActionURL, setEnvDefaults } from "../../../lib/core"
import type { AuthConfig } from "../../../lib/core/kernel/types"
import { deepMerge } from "../../../lib/core/kernel/config/merge"
import type { OAuthConfig } from "../../../lib/providers/types"
import { testLogger } from "../helpers"

const oauth = (options: Partial<OAuthConfig> = {}): OAuthConfig => ({
  id: "my-provider",
  name: "Mine",
  type: "oauth",
  authorization: "https://idp.example/authorize",
  token: "https://idp.example/token",
  userinfo: "https://idp.example/userinfo",
  ...options,
})

describe("setEnvDefaults (reference 18.14)", () => {
  it("infers AUTH_<ID>_ID/_SECRET/_ISSUER for object providers (dashes as underscores)", () => {
    const config: AuthConfig = { providers: [oauth()] }
    setEnvDefaults(
      { AUTH_MY_PROVIDER_ID: "cid", AUTH_MY_PROVIDER_SECRET: "csecret", AUTH_MY_PROVIDER_ISSUER: "https://iss" },
      config,
    )
    // Object providers get the top-level fields (their `options` still win when the core merges them).
    expect(config.providers[0]).toMatchObject({ clientId: "cid", clientSecret: "csecret", issuer: "https://iss" })
    const own: AuthConfig = { providers: [oauth({ clientId: "mine" })] }
    setEnvDefaults({ AUTH_MY_PROVIDER_ID: "cid", AUTH_MY_PROVIDER_SECRET: "csecret" }, own)
    expect(own.providers[0]).toMatchObject({ clientId: "mine", clientSecret: "csecret" })
    const email: AuthConfig = {
      providers: [{ id: "resend", name: "Resend", type: "email", sendVerificationRequest: async () => {} }],
    }
    setEnvDefaults({ AUTH_RESEND_KEY: "re_123" }, email)
    expect(email.providers[0]).toMatchObject({ apiKey: "re_123" })
    // The function form is called with the values.
    const fn = (opts: Partial<OAuthConfig> = {}) => ({ ...oauth(), options: opts }) as OAuthConfig
    const withFn: AuthConfig = { providers: [fn] }
    setEnvDefaults({ AUTH_MY_PROVIDER_ID: "cid", AUTH_MY_PROVIDER_SECRET: "csecret" }, withFn)
    expect((withFn.providers[0] as OAuthConfig).options).toMatchObject({ clientId: "cid", clientSecret: "csecret" })
    // ... and, as in Auth.js, the provider it returned carries them too.
    expect(withFn.providers[0]).toMatchObject({ clientId: "cid", clientSecret: "csecret" })
  })

  it("secret order, config secret preferred, redirect proxy, basePath from AUTH_URL", () => {
    const a: AuthConfig = { providers: [] }
    setEnvDefaults({ AUTH_SECRET: "0", AUTH_SECRET_1: "1", AUTH_REDIRECT_PROXY_URL: "https://proxy.example/auth" }, a)
    expect(a.secret).toEqual(["1", "0"])
    expect(a.redirectProxyUrl).toBe("https://proxy.example/auth")
    expect(a.basePath).toBe("/auth")
    const b: AuthConfig = { providers: [], secret: "cfg" }
    setEnvDefaults({ AUTH_SECRET: "env", AUTH_URL: "https://x.example/api/auth" }, b)
    expect(b.secret).toBe("cfg")
    expect(b.basePath).toBe("/api/auth")
    const c: AuthConfig = { providers: [] }
    setEnvDefaults({ AUTH_URL: "not a url" }, c)
    expect(c.basePath).toBe("/auth")
  })

  it("warns env-url-basepath-redundant when both are set, unless suppressed", () => {
    const logger = testLogger()
    setEnvDefaults({ AUTH_URL: "https://x.example/api/auth" }, { providers: [], basePath: "/auth" }, false, logger)
    setEnvDefaults({ AUTH_URL: "https://x.example/api/auth" }, { providers: [], basePath: "/auth" }, true, logger)
    expect(logger.warnings).toEqual(["env-url-basepath-redundant"])
  })

  it("without a logger argument, warnings go to config.logger", () => {
    const logger = testLogger()
    setEnvDefaults({ AUTH_URL: "https://x.example/api/auth" }, { providers: [], basePath: "/auth", logger })
    expect(logger.warnings).toEqual(["env-url-basepath-redundant"])
  })

  it.each([
    [{ AUTH_TRUST_HOST: "false", NODE_ENV: "production" }, false],
    [{ AUTH_TRUST_HOST: "1", NODE_ENV: "production" }, true],
    [{ AUTH_URL: "https://a.example", NODE_ENV: "production" }, true],
    [{ NODE_ENV: "production" }, false],
    [{ NODE_ENV: "test" }, true],
  ])("trustHost for %j is %s", (env, expected) => {
    const config: AuthConfig = { providers: [] }
    setEnvDefaults(env, config)
    expect(config.trustHost).toBe(expected)
  })
})

describe("createActionURL", () => {
  it.each([
    [{ host: "example.com" }, {}, "/basepath", "https://example.com/basepath/callback"],
    [
      { host: "example.com", "x-forwarded-host": "fwd.example", "x-forwarded-proto": "http" },
      {},
      "/auth",
      "http://fwd.example/auth/callback",
    ],
    [
      { host: "ignored" },
      { AUTH_URL: "https://sub.domain.env.com/api/auth" },
      undefined,
      "https://sub.domain.env.com/api/auth/callback",
    ],
    [
      { host: "ignored" },
      { AUTH_URL: "https://sub.domain.env.com/my-app" },
      "/api/auth",
      "https://sub.domain.env.com/api/auth/callback",
    ],
  ])("headers %j env %j basePath %s → %s", (headers, env, basePath, expected) => {
    const logger = testLogger()
    const url = createActionURL("callback", "https", new Headers(headers), env, { basePath, logger })
    expect(url.href).toBe(expected)
  })

  it("warns env-url-basepath-mismatch", () => {
    const logger = testLogger()
    createActionURL(
      "signout",
      "https",
      new Headers(),
      { AUTH_URL: "https://a.example/my-app" },
      { basePath: "/api/auth", logger },
    )
    expect(logger.warnings).toEqual(["env-url-basepath-mismatch"])
  })
})

describe("deepMerge (reference 18.19)", () => {
  it("merges nested objects, arrays index-wise, keeps on undefined, replaces functions and null", () => {
    const f = () => 1
    const g = () => 2
    expect(
      deepMerge({ a: { b: 1, c: 2 }, l: [1, 2, 3], f, n: 1 }, { a: { c: 3 }, l: [9], f: g, n: null, u: undefined }),
    ).toEqual({
      a: { b: 1, c: 3 },
      l: [9, 2, 3],
      f: g,
      n: null,
    })
  })

  it("a string endpoint replaces an object endpoint and vice versa", () => {
    expect(deepMerge({ token: { url: "a", params: {} } }, { token: "b" })).toEqual({ token: "b" })
    expect(deepMerge({ token: "a" }, { token: { url: "b" } })).toEqual({ token: { url: "b" } })
  })

  it("does not mutate its inputs", () => {
    const target = { a: { b: 1 } }
    deepMerge(target, { a: { b: 2 } })
    expect(target).toEqual({ a: { b: 1 } })
  })
})

describe("provider env inference through resolveConfig", () => {
  it("AUTH_<ID>_ID/_SECRET fill a catalogue provider given as a factory or as a config", async () => {
    const { resolveConfig } = await import("../../../lib/core/kernel/config/resolve")
    const GitHub = (await import("../../../lib/providers/github")).default
    const env = { AUTH_GITHUB_ID: "gh-id", AUTH_GITHUB_SECRET: "gh-secret", AUTH_SECRET: "s".repeat(32) }
    for (const providers of [[GitHub], [GitHub()]]) {
      const resolved = resolveConfig({ providers, trustHost: true }, { env })
      expect(resolved.providers[0]).toMatchObject({ id: "github", clientId: "gh-id", clientSecret: "gh-secret" })
    }
    const explicit = resolveConfig({ providers: [GitHub({ clientId: "mine" })], trustHost: true }, { env })
    expect(explicit.providers[0]).toMatchObject({ clientId: "mine", clientSecret: "gh-secret" })
  })

  it("AUTH_<ID>_ISSUER fills an OIDC provider's issuer (dashes as underscores)", async () => {
    const { resolveConfig } = await import("../../../lib/core/kernel/config/resolve")
    const Keycloak = (await import("../../../lib/providers/keycloak")).default
    const env = {
      AUTH_KEYCLOAK_ID: "kc",
      AUTH_KEYCLOAK_SECRET: "kc-secret",
      AUTH_KEYCLOAK_ISSUER: "https://kc.example/realms/x",
      AUTH_SECRET: "s".repeat(32),
    }
    const resolved = resolveConfig({ providers: [Keycloak()], trustHost: true }, { env })
    expect(resolved.providers[0]).toMatchObject({ clientId: "kc", issuer: "https://kc.example/realms/x" })
  })
})

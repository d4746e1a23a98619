import { Auth, createAuthHandler, resolveConfig } from "../../../lib/core"
import {
  MissingAdapterMethods,
  MissingSecret,
  UntrustedHost,
  InvalidConfig,
  MissingAuthorize,
} from "../../../lib/errors"
import type { AuthConfig } from "../../../lib/core/types"
import type { CredentialsConfig } from "../../../lib/providers/types"
import { ORIGIN, credentialsConfig, makeRequest, testLogger } from "../helpers"

const serverConfigMessage = {
  message: "There was a problem with the server configuration. Check the server logs for more information.",
}

describe("config resolution", () => {
  it("is frozen and resolved once per config object", () => {
    const config = credentialsConfig()
    const resolved = resolveConfig(config, { env: {} })
    expect(Object.isFrozen(resolved)).toBe(true)
    expect(Object.isFrozen(resolved.session)).toBe(true)
    expect(resolved.basePath).toBe("/auth")
    expect(resolved.session).toMatchObject({ strategy: "jwt", maxAge: 2592000, updateAge: 86400 })
    expect(resolved.jwt.maxAge).toBe(2592000)
    expect(config.basePath).toBeUndefined()
  })

  it("missing secret in production throws MissingSecret at construction", () => {
    const config = { ...credentialsConfig(), secret: undefined }
    expect(() => resolveConfig(config, { env: { NODE_ENV: "production", AUTH_TRUST_HOST: "true" } })).toThrow(
      MissingSecret,
    )
  })

  it("missing secret outside production warns once and uses a random per-process secret", () => {
    const config = { ...credentialsConfig(), secret: undefined }
    const a = resolveConfig(config, { env: {} })
    const b = resolveConfig({ ...config, logger: testLogger() }, { env: {} })
    expect(a.secret).toHaveLength(1)
    expect(a.secret[0]).toMatch(/^[0-9a-f]{64}$/)
    expect(b.secret).toEqual(a.secret)
  })

  it("AUTH_SECRET and rotation variables: newest first", () => {
    const config = { ...credentialsConfig(), secret: undefined }
    expect(resolveConfig(config, { env: { AUTH_SECRET: "0", AUTH_SECRET_1: "1" } }).secret).toEqual(["1", "0"])
    expect(
      resolveConfig(config, { env: { AUTH_SECRET: "0", AUTH_SECRET_1: "1", AUTH_SECRET_2: "2", AUTH_SECRET_3: "3" } })
        .secret,
    ).toEqual(["3", "2", "1", "0"])
    expect(resolveConfig({ ...config, secret: "cfg" }, { env: { AUTH_SECRET: "env" } }).secret).toEqual(["cfg"])
  })

  it.each([
    [{ NODE_ENV: "production" }, false],
    [{ NODE_ENV: "production", AUTH_TRUST_HOST: "false" }, false],
    [{ NODE_ENV: "production", AUTH_TRUST_HOST: "0" }, false],
    [{ NODE_ENV: "production", AUTH_TRUST_HOST: "true" }, true],
    [{ NODE_ENV: "production", AUTH_URL: "https://app.example/auth" }, true],
    [{ NODE_ENV: "development" }, true],
    [{}, true],
  ])("trustHost from env %j → %s", (env, trusted) => {
    const config = { ...credentialsConfig(), trustHost: undefined }
    if (trusted) expect(resolveConfig(config, { env }).trustHost).toBe(true)
    else expect(() => resolveConfig(config, { env })).toThrow(UntrustedHost)
  })

  it("AUTH_URL sets the base path and the origin of generated URLs", async () => {
    const config = { ...credentialsConfig(), basePath: undefined }
    const resolved = resolveConfig(config, { env: { AUTH_URL: "https://public.example/api/auth" } })
    expect(resolved.basePath).toBe("/api/auth")
    expect(resolved.authUrl?.origin).toBe("https://public.example")
  })

  it.each([["auth"], ["/auth?x"], ["//auth"], ["/a\\b"]])("rejects basePath %j", (basePath) => {
    expect(() => resolveConfig(credentialsConfig({ basePath }), { env: {} })).toThrow(InvalidConfig)
  })

  it("rejects duplicate provider ids and pages that are not paths", () => {
    const config = credentialsConfig()
    expect(() =>
      resolveConfig({ ...config, providers: [...config.providers, ...config.providers] }, { env: {} }),
    ).toThrow("Duplicate provider id")
    expect(() => resolveConfig(credentialsConfig({ pages: { signIn: "https://evil.example" } }), { env: {} })).toThrow(
      InvalidConfig,
    )
  })

  it("a credentials provider without authorize → MissingAuthorize", () => {
    const provider = {
      id: "credentials",
      name: "C",
      type: "credentials",
      credentials: {},
    } as unknown as CredentialsConfig
    expect(() => resolveConfig(credentialsConfig({ providers: [provider] }), { env: {} })).toThrow(MissingAuthorize)
  })

  it("database strategy without the session methods → MissingAdapterMethods naming them", () => {
    const config = credentialsConfig({ adapter: { getUser: async () => null } })
    expect(() => resolveConfig(config, { env: {} })).toThrow(MissingAdapterMethods)
    expect(() => resolveConfig(config, { env: {} })).toThrow(/createUser, getUserByEmail, getUserByAccount/)
  })

  it("database strategy without an adapter → MissingAdapter", () => {
    expect(() => resolveConfig(credentialsConfig({ session: { strategy: "database" } }), { env: {} })).toThrow(
      "Database session requires an adapter",
    )
  })

  it("createAuthHandler throws at construction, not at the first request", () => {
    const bad = credentialsConfig({ session: { maxAge: -1 } })
    expect(() => createAuthHandler(bad)).toThrow(InvalidConfig)
  })

  it("a debug config warns debug-enabled", () => {
    const config = credentialsConfig({ debug: true })
    resolveConfig(config, { env: {} })
    expect(config.logger.warnings).toContain("debug-enabled")
  })
})

describe("config errors through Auth()", () => {
  const bad = (): AuthConfig & { logger: ReturnType<typeof testLogger> } =>
    credentialsConfig({ session: { strategy: "database" } })

  it("a JSON action answers 500 with the fixed message and logs the error", async () => {
    const config = bad()
    const response = await Auth(makeRequest("/auth/session"), config)
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual(serverConfigMessage)
    expect(config.logger.errors.map((e) => (e as { type?: string }).type)).toEqual(["MissingAdapter"])
  })

  it("GET on a page action shows the Configuration page (500 HTML)", async () => {
    const response = await Auth(makeRequest("/auth/signin"), bad())
    expect(response.status).toBe(500)
    expect(response.headers.get("content-type")).toBe("text/html")
    expect(await response.text()).toContain("Server error")
  })

  it("with pages.error configured, redirects there; a callbackUrl under it is an ErrorPageLoop", async () => {
    const config = { ...bad(), pages: { error: "/oops" } }
    const response = await Auth(makeRequest("/auth/signin"), config)
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/oops?error=Configuration`)
    const loop = await Auth(makeRequest("/auth/error?callbackUrl=%2Foops"), config)
    expect(loop.status).toBe(500)
    expect(config.logger.errors.map((e) => (e as { type?: string }).type)).toContain("ErrorPageLoop")
  })

  it("an untrusted host in production: 500 and UntrustedHost naming the URL", async () => {
    const config = { ...credentialsConfig(), trustHost: false }
    const response = await Auth(makeRequest("/auth/session"), config)
    expect(response.status).toBe(500)
    expect(config.logger.errors[0]).toBeInstanceOf(UntrustedHost)
    expect(config.logger.errors[0]!.message).toBe(`Host must be trusted. URL was: ${ORIGIN}/auth/session`)
  })

  it.each(["non-relative", "a", "javascript:alert(1)"])(
    "an invalid callbackUrl query %j → 500 InvalidCallbackUrl",
    async (value) => {
      const config = credentialsConfig()
      const response = await Auth(makeRequest(`/auth/session?callbackUrl=${encodeURIComponent(value)}`), config)
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual(serverConfigMessage)
      expect(config.logger.errors[0]!.message).toBe(`Invalid callback URL. Received: ${value}`)
    },
  )

  it.each([
    ["the default cookie", "__Secure-authjs.callback-url", {}],
    ["a custom cookie name", "my-callback", { cookies: { callbackUrl: { name: "my-callback" } } }],
  ])("an invalid callback-url in %s → 500", async (_n, name, overrides) => {
    const config = credentialsConfig(overrides as Partial<AuthConfig>)
    const response = await Auth(makeRequest("/auth/session", { cookies: { [name]: "non-relative" } }), config)
    expect(response.status).toBe(500)
  })

  it("the lazy form is resolved per request and cached by the identity of the returned object", async () => {
    const config = credentialsConfig()
    let calls = 0
    const lazy = (request: Request) => {
      calls++
      expect(request.url).toContain("/auth/")
      return config
    }
    await Auth(makeRequest("/auth/providers"), lazy)
    await Auth(makeRequest("/auth/providers"), lazy)
    expect(calls).toBe(2)
    const { resolveConfigCached } = await import("../../../lib/core/config/resolve")
    expect(resolveConfigCached(config)).toBe(resolveConfigCached(config))
  })
})

import { Auth, createAuthHandler } from "../../../lib/core"
import { resolveConfig } from "../../../lib/core/kernel/config/resolve"
import {
  MissingAdapterMethods,
  MissingSecret,
  UntrustedHost,
  InvalidConfig,
  MissingAuthorize,
} from "../../../lib/errors"
import type { AuthConfig } from "../../../lib/core/kernel/types"
import type { CredentialsConfig } from "../../../lib/providers/types"
import type { Adapter } from "../../../lib/storage/adapter"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import Email from "../../../lib/providers/email"
import GitHub from "../../../lib/providers/github"
import { ORIGIN, SECRET, credentialsConfig, makeRequest, testLogger } from "../helpers"

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
    if (trusted) expect(() => resolveConfig(config, { env })).not.toThrow()
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
    expect(() => resolveConfig(config, { env: {} })).toThrow(
      "Required adapter methods were missing: createSession, getSessionAndUser, updateSession, deleteSession, getUserByEmail, createUser",
    )
  })

  it("database sessions with a back-channel logout provider need deleteSessionsByIdp; JWT sessions do not", () => {
    const corp = {
      id: "corp",
      name: "Corp",
      type: "oidc" as const,
      issuer: "https://op.example",
      clientId: "app",
      clientSecret: "s",
      logout: { backchannel: true },
    }
    const { deleteSessionsByIdp: _omitted, ...adapter } = MemoryAdapter()
    const database = { secret: SECRET, trustHost: true, logger: testLogger(), providers: [corp], adapter }
    expect(() => resolveConfig({ ...database, session: { strategy: "database" } }, { env: {} })).toThrow(
      "Required adapter methods were missing: deleteSessionsByIdp",
    )
    const jwt = resolveConfig({ ...database, session: { strategy: "jwt" } }, { env: {} })
    expect(Object.keys(jwt.stores.logout!).sort()).toEqual(["deleteSessions", "getAccount", "getUserByAccount"])
    const full = resolveConfig(
      { ...database, adapter: MemoryAdapter(), session: { strategy: "database" } },
      { env: {} },
    )
    expect(typeof full.stores.logout?.deleteSessionsByIdp).toBe("function")
  })

  describe("only the adapter methods of the features in use are required, and the missing ones are named", () => {
    const tokenMethods = {
      createVerificationToken: async () => null,
      useVerificationToken: async () => null,
      getUserByEmail: async () => null,
    }
    const emailProvider = Email({ sendVerificationRequest: async () => undefined })
    const base = { secret: SECRET, trustHost: true, logger: testLogger() }
    const missingOf = (config: AuthConfig): unknown => {
      try {
        resolveConfig(config, { env: {} })
        return "resolved"
      } catch (error) {
        expect(error).toBeInstanceOf(MissingAdapterMethods)
        return ((error as Error).cause as { missing: string[] }).missing
      }
    }

    it("email sign-in with JWT sessions needs the token pair and the user methods of its callback, no session methods", () => {
      const { createUser, updateUser } = MemoryAdapter()
      const adapter: Adapter = { ...tokenMethods, createUser, updateUser }
      const config = { ...base, adapter, session: { strategy: "jwt" as const }, providers: [emailProvider] }
      expect(missingOf(config)).toBe("resolved")
      expect(missingOf({ ...config, adapter: tokenMethods as Adapter })).toEqual(["createUser", "updateUser"])
    })

    it("email with database sessions adds exactly the four session methods", () => {
      const { createUser, updateUser } = MemoryAdapter()
      const adapter: Adapter = { ...tokenMethods, createUser, updateUser }
      expect(missingOf({ ...base, adapter, providers: [emailProvider] })).toEqual([
        "createSession",
        "getSessionAndUser",
        "updateSession",
        "deleteSession",
      ])
    })

    it("OAuth with an adapter and JWT sessions needs the account-linking methods", () => {
      const adapter = { getUserByAccount: async () => null } as Adapter
      const github = GitHub({ clientId: "id", clientSecret: "secret" })
      expect(missingOf({ ...base, adapter, session: { strategy: "jwt" as const }, providers: [github] })).toEqual([
        "getUser",
        "getUserByEmail",
        "createUser",
        "linkAccount",
      ])
    })

    it("the views carry only their feature's methods", () => {
      const adapter = MemoryAdapter()
      const resolved = resolveConfig(
        { ...base, adapter, session: { strategy: "jwt" as const }, providers: [emailProvider] },
        { env: {} },
      )
      // `management` holds only optional methods and exists with any adapter.
      expect(Object.keys(resolved.stores).sort()).toEqual(["email", "management"])
      expect(Object.keys(resolved.stores.email!).sort()).toEqual(
        // deleteUser is optional (replacing a never-verified user needs it) and the memory adapter has it.
        ["createUser", "createVerificationToken", "deleteUser", "getUserByEmail", "updateUser", "useVerificationToken"],
      )
    })
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
    expect(config.logger.errors[0]!.message).toMatch(/^Host must be trusted: set AUTH_URL .* AUTH_TRUST_HOST=true /)
    expect(config.logger.errors[0]!.message).toContain(`URL was: ${ORIGIN}/auth/session`)
  })

  it.each(["non-relative", "a", "javascript:alert(1)"])(
    "an invalid callbackUrl query %j → 400 (RD-12), logged as InvalidCallbackUrl",
    async (value) => {
      const config = credentialsConfig()
      const response = await Auth(makeRequest(`/auth/session?callbackUrl=${encodeURIComponent(value)}`), config)
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ message: "Invalid callbackUrl." })
      expect(config.logger.errors[0]!.message).toBe("Invalid callback URL")
    },
  )

  it.each([
    ["the default cookie", "__Secure-authjs.callback-url", {}],
    ["a custom cookie name", "my-callback", { cookies: { callbackUrl: { name: "my-callback" } } }],
  ])("an invalid callback-url in %s is ignored and replaced (RD-13)", async (_n, name, overrides) => {
    const config = credentialsConfig(overrides as Partial<AuthConfig>)
    const response = await Auth(makeRequest("/auth/session", { cookies: { [name]: "non-relative" } }), config)
    expect(response.status).toBe(200)
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${name}=https%3A%2F%2Fapp.example;`))).toBe(true)
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
    const { resolveConfigCached } = await import("../../../lib/core/kernel/config/resolve")
    expect(resolveConfigCached(config)).toBe(resolveConfigCached(config))
  })
})

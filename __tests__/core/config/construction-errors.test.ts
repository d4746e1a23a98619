/**
 * Issue 9's configuration-error table: each mistake fails (or warns) at construction, and the message names the fix
 * (the environment variable or option to set).
 */
import { createAuthHandler } from "../../../lib/core"
import { resolveConfig } from "../../../lib/core/kernel/config/resolve"
import { ExpressAuth } from "../../../lib"
import { InvalidConfig, MissingAuthorize, MissingSecret, UntrustedHost } from "../../../lib/errors"
import type { AuthConfig } from "../../../lib/core/kernel/types"
import { createLogger, warningMessages, type LoggerInstance, type WarningCode } from "../../../lib/logger"
import Credentials from "../../../lib/providers/credentials"
import GitHub from "../../../lib/providers/github"
import Keycloak from "../../../lib/providers/keycloak"
import type { ProviderConfig } from "../../../lib/providers/types"
import { warnEnvTypos } from "../../../lib/core/kernel/config/env-typos"
import { SECRET } from "../helpers"

interface Recorder extends LoggerInstance {
  warnings: { code: WarningCode; message: string | undefined }[]
}

function recorder(): Recorder {
  const warnings: Recorder["warnings"] = []
  return { warnings, error: () => {}, warn: (code, message) => void warnings.push({ code, message }), debug: () => {} }
}

const credentials = () => Credentials({ authorize: () => null })

function config(overrides: Partial<AuthConfig> = {}): AuthConfig & { logger: Recorder } {
  return { providers: [credentials()], logger: recorder(), ...overrides } as AuthConfig & { logger: Recorder }
}

function thrown(fn: () => unknown): Error {
  try {
    fn()
  } catch (error) {
    return error as Error
  }
  throw new Error("expected a throw")
}

describe("no secret in production", () => {
  it("throws MissingSecret naming AUTH_SECRET and both ways to make one", () => {
    const error = thrown(() =>
      resolveConfig(config(), { env: { NODE_ENV: "production", AUTH_URL: "https://app.example/auth" } }),
    )
    expect(error).toBeInstanceOf(MissingSecret)
    expect(error.message).toContain("Set AUTH_SECRET")
    expect(error.message).toContain("`npx gatehouse-auth secret`")
    expect(error.message).toContain("`openssl rand -base64 33`")
  })

  it("with no trusted host either, names the secret first; with a secret, then the host", () => {
    const env = { NODE_ENV: "production" }
    expect(thrown(() => resolveConfig(config(), { env }))).toBeInstanceOf(MissingSecret)
    const host = thrown(() => resolveConfig(config({ secret: SECRET }), { env }))
    expect(host).toBeInstanceOf(UntrustedHost)
    expect(host.message).toContain("AUTH_URL")
    expect(host.message).toContain("AUTH_TRUST_HOST=true")
  })

  it.each(["staging", "prod", "Production"])(
    "NODE_ENV=%s counts as production: an error, not a random secret",
    (mode) => {
      const error = thrown(() => resolveConfig(config(), { env: { NODE_ENV: mode, AUTH_TRUST_HOST: "true" } }))
      expect(error).toBeInstanceOf(MissingSecret)
      expect(error.message).toContain(`NODE_ENV=${mode} counts as production`)
    },
  )

  it("NODE_ENV=staging does not trust the host either", () => {
    const error = thrown(() => resolveConfig(config({ secret: SECRET }), { env: { NODE_ENV: "staging" } }))
    expect(error).toBeInstanceOf(UntrustedHost)
  })

  it.each([[{}], [{ NODE_ENV: "development" }], [{ NODE_ENV: "test" }]])(
    "%j is not production: a random secret and a one-sentence warning",
    (env) => {
      const resolved = resolveConfig(config(), { env })
      expect(resolved.secret[0]).toMatch(/^[0-9a-f]{64}$/)
    },
  )

  it("ExpressAuth and createAuthHandler throw the same at construction, before any request", () => {
    const saved = { ...process.env }
    try {
      process.env.NODE_ENV = "production"
      delete process.env.AUTH_SECRET
      expect(() => ExpressAuth(config())).toThrow(/Set AUTH_SECRET/)
      expect(() => createAuthHandler(config())).toThrow(MissingSecret)
    } finally {
      process.env = saved
    }
  })
})

describe("the development random-secret warning", () => {
  it("is a sentence: random secret, sessions end on restart, set AUTH_SECRET", () => {
    expect(warningMessages["missing-secret-dev"]).toMatch(/random one is used/)
    expect(warningMessages["missing-secret-dev"]).toMatch(/sessions end when it restarts/)
    expect(warningMessages["missing-secret-dev"]).toMatch(/Set AUTH_SECRET/)
  })

  it("the built-in logger prints the code and the sentence", () => {
    const write = jest.spyOn(process.stderr, "write").mockImplementation(() => true)
    try {
      createLogger({}).warn("missing-secret-dev")
      expect(String(write.mock.calls[0]![0])).toMatch(/^\[gatehouse\]\[warn\]\[missing-secret-dev\] No secret is set/)
    } finally {
      write.mockRestore()
    }
  })
})

describe("a short secret in production", () => {
  it("warns with the length and the same fix", () => {
    const c = config({ secret: "x" })
    resolveConfig(c, { env: { NODE_ENV: "production", AUTH_TRUST_HOST: "true" } })
    expect(c.logger.warnings).toHaveLength(1)
    expect(c.logger.warnings[0]!.code).toBe("short-secret")
    expect(c.logger.warnings[0]!.message).toContain("The secret is 1 byte long; use at least 32")
    expect(c.logger.warnings[0]!.message).toContain("`npx gatehouse-auth secret`")
  })

  it("counts bytes in plain English", () => {
    const c = config({ secret: "xyz" })
    resolveConfig(c, { env: { NODE_ENV: "production", AUTH_TRUST_HOST: "true" } })
    expect(c.logger.warnings[0]!.message).toContain("The secret is 3 bytes long")
  })

  it("an unknown session.strategy names the valid values", () => {
    const error = thrown(() =>
      resolveConfig(config({ secret: SECRET, session: { strategy: "jwe" as "jwt" } }), { env: {} }),
    )
    expect(error).toBeInstanceOf(InvalidConfig)
    expect((error as Error).message).toBe(
      'Invalid session.strategy "jwe": use "jwt" (the default without an adapter) or "database" (the default with one)',
    )
  })

  it("a 32-byte secret, or a short one in development, is accepted silently", () => {
    const long = config({ secret: "a".repeat(32) })
    resolveConfig(long, { env: { NODE_ENV: "production", AUTH_TRUST_HOST: "true" } })
    const dev = config({ secret: "x" })
    resolveConfig(dev, { env: {} })
    expect([...long.logger.warnings, ...dev.logger.warnings]).toEqual([])
  })
})

describe("misspelt AUTH_* variables", () => {
  it.each([
    ["AUTH_SECERT", "AUTH_SECRET"],
    ["AUTH_GITHUB_SECERT", "AUTH_GITHUB_SECRET"],
    ["AUTH_GTIHUB_ID", "AUTH_GITHUB_ID"],
    ["AUTH_TRUSTHOST", "AUTH_TRUST_HOST"],
    ["auth_secret", "AUTH_SECRET"],
    ["AUHT_URL", "AUTH_URL"],
  ])("%s warns, naming %s", (name, intended) => {
    const c = config({ secret: SECRET, providers: [GitHub({ clientId: "id", clientSecret: "s" })] })
    resolveConfig(c, { env: { [name]: "value" } })
    expect(c.logger.warnings).toEqual([
      {
        code: "env-variable-typo",
        message: `${name} is set but Gatehouse does not read it; did you mean ${intended}?`,
      },
    ])
  })

  it("correct names and unrelated variables are left alone", () => {
    const logger = recorder()
    const env = {
      AUTH_SECRET: "s",
      AUTH_SECRET_1: "t",
      AUTH_GITHUB_ID: "id",
      AUTH_URL: "https://app.example/auth",
      AUTHOR_NAME: "Ada",
      DATABASE_URL: "postgres://",
      PATH: "/usr/bin",
      AUTH_MY_OWN_FEATURE_FLAG: "1",
    }
    warnEnvTypos(env, [GitHub() as ProviderConfig], logger)
    expect(logger.warnings).toEqual([])
  })
})

describe("OAuth providers without a client", () => {
  it("no client id: names AUTH_<PROVIDER>_ID and _SECRET, at construction", () => {
    const error = thrown(() => resolveConfig(config({ secret: SECRET, providers: [GitHub] }), { env: {} }))
    expect(error).toBeInstanceOf(InvalidConfig)
    expect(error.message).toBe(
      'The "github" provider has no client id: set AUTH_GITHUB_ID (and AUTH_GITHUB_SECRET), or pass `clientId`.',
    )
  })

  it("a client id but no secret: names AUTH_<PROVIDER>_SECRET (dashes as underscores)", () => {
    const provider = Keycloak({ issuer: "https://kc.example/realms/x" })
    const error = thrown(() =>
      resolveConfig(config({ secret: SECRET, providers: [provider] }), { env: { AUTH_KEYCLOAK_ID: "kc" } }),
    )
    expect(error.message).toContain("set AUTH_KEYCLOAK_SECRET, or pass `clientSecret`")
  })

  it("a public client (token_endpoint_auth_method none) needs no secret; env variables fill both", () => {
    const publicClient = GitHub({ clientId: "id", client: { token_endpoint_auth_method: "none" } })
    expect(resolveConfig(config({ secret: SECRET, providers: [publicClient] }), { env: {} }).providers).toHaveLength(1)
    const env = { AUTH_GITHUB_ID: "id", AUTH_GITHUB_SECRET: "s" }
    expect(resolveConfig(config({ secret: SECRET, providers: [GitHub] }), { env }).providers[0]).toMatchObject({
      clientId: "id",
    })
  })
})

describe("Credentials without authorize", () => {
  it("throws MissingAuthorize at construction (the factory has no silent default)", () => {
    const error = thrown(() => resolveConfig(config({ secret: SECRET, providers: [Credentials({})] }), { env: {} }))
    expect(error).toBeInstanceOf(MissingAuthorize)
    expect(error.message).toContain("has no authorize()")
  })
})

describe("things that are not providers", () => {
  it("a module namespace gives a one-sentence error saying so", () => {
    const namespace = { __esModule: true, default: Credentials, Credentials }
    const error = thrown(() => resolveConfig(config({ secret: SECRET, providers: [namespace as never] }), { env: {} }))
    expect(error).toBeInstanceOf(InvalidConfig)
    expect(error.message).toMatch(
      /^providers\[0\] is a module namespace, not a provider: pass the factory it exports instead/,
    )
    const esm = Object.defineProperty({ default: GitHub }, Symbol.toStringTag, { value: "Module" })
    expect(() => resolveConfig(config({ secret: SECRET, providers: [esm as never] }), { env: {} })).toThrow(
      /module namespace/,
    )
  })

  it("any other object names the provider types that exist", () => {
    const error = thrown(() =>
      resolveConfig(config({ secret: SECRET, providers: [credentials(), { name: "x" } as never] }), { env: {} }),
    )
    expect(error.message).toBe(
      "providers[1] is not a provider: expected what a factory of gatehouse-auth/providers/<id> returns, an object " +
        "with an `id` and a `type` (oauth, oidc, email, credentials, webauthn, password).",
    )
  })

  it("`provider:` instead of `providers:` is an error suggesting the right key", () => {
    const typo = { secret: SECRET, provider: [credentials()] } as unknown as AuthConfig
    const error = thrown(() => resolveConfig(typo, { env: {} }))
    expect(error).toBeInstanceOf(InvalidConfig)
    expect(error.message).toContain("it has `provider`: did you mean `providers`?")
  })

  it("an unknown provider id at request time lists the configured ids", async () => {
    const errors: Error[] = []
    const c = config({ secret: SECRET, trustHost: true, logger: { ...recorder(), error: (e) => void errors.push(e) } })
    const handler = createAuthHandler(c)
    const response = await handler(new Request("https://app.example/auth/signin/githb"))
    expect(response.headers.get("location")).toContain("error=Configuration")
    expect(errors[0]!.message).toBe('Provider "githb" not found; the configured ids are: credentials')
  })
})

describe("plain-http OAuth servers", () => {
  const op = (issuer: string, extra: object = {}) =>
    Keycloak({ issuer, clientId: "kc", clientSecret: "s", ...extra }) as ProviderConfig

  it.each(["http://op.example/realms/x", "http://10.0.0.5:8080/realms/x"])(
    "%s without allowInsecureRequests: an error naming the option",
    (issuer) => {
      const error = thrown(() => resolveConfig(config({ secret: SECRET, providers: [op(issuer)] }), { env: {} }))
      expect(error).toBeInstanceOf(InvalidConfig)
      expect(error.message).toContain("over plain http; use https, or set `allowInsecureRequests: true`")
    },
  )

  it.each(["http://localhost:8080/realms/x", "http://127.0.0.1:3001", "http://127.1.2.3/x", "http://[::1]:9000"])(
    "loopback %s works without a flag",
    (issuer) => {
      const resolved = resolveConfig(config({ secret: SECRET, providers: [op(issuer)] }), { env: {} })
      expect(resolved.providers[0]).toMatchObject({ allowInsecureRequests: true })
    },
  )

  it("a non-loopback http issuer with the flag is accepted; https never needs it", () => {
    const flagged = op("http://op.example/x", { allowInsecureRequests: true })
    expect(resolveConfig(config({ secret: SECRET, providers: [flagged] }), { env: {} }).providers).toHaveLength(1)
    const https = resolveConfig(config({ secret: SECRET, providers: [op("https://op.example/x")] }), { env: {} })
    expect(https.providers[0]).toMatchObject({ allowInsecureRequests: false })
  })

  it("a non-loopback http endpoint of a plain OAuth 2 provider is refused too", () => {
    const github = GitHub({ clientId: "id", clientSecret: "s", token: "http://github.internal/token" })
    expect(() => resolveConfig(config({ secret: SECRET, providers: [github] }), { env: {} })).toThrow(
      /github.*plain http/,
    )
  })
})

describe("a malformed AUTH_URL fails closed", () => {
  it.each(["not a url", "app.example/auth", "ftp://app.example/auth", "javascript:alert(1)"])(
    "AUTH_URL=%s → InvalidConfig naming the variable, at construction",
    (value) => {
      const error = thrown(() => resolveConfig(config({ secret: SECRET }), { env: { AUTH_URL: value } }))
      expect(error).toBeInstanceOf(InvalidConfig)
      expect((error as InvalidConfig).code).toBe("invalid_config")
      expect((error as InvalidConfig).cause).toEqual({ variable: "AUTH_URL" })
      expect(error.message).toContain("AUTH_URL")
    },
  )

  it("a valid AUTH_URL next to it resolves, and its origin is the configured one", () => {
    const resolved = resolveConfig(config({ secret: SECRET }), { env: { AUTH_URL: "https://app.example/auth" } })
    expect(resolved.basePath).toBe("/auth")
  })
})

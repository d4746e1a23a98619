// One catalogue provider's unit test: id, type, the effective endpoints and scope after the core's merge, client
// authentication, checks, environment inference, and profile() on the fixture under __tests__/fixtures/profiles/.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { InvalidConfig } from "../../../lib/errors"
import { setEnvDefaults } from "../../../lib/core/kernel/config/env"
import { resolveProviders } from "../../../lib/core/kernel/config/providers"
import type { AuthConfig } from "../../../lib/core/kernel/types"
import type { ResolvedOAuthProvider } from "../../../lib/oauth"
import type { OAuthConfig, TokenSet } from "../../../lib/providers/types"
import type { User } from "../../../lib/models"

type Factory = (options?: any) => OAuthConfig<any>

/** What a provider must be, as its documentation (and, where it has one, Auth.js's provider) says. */
export interface ProviderCase {
  factory: Factory
  id: string
  name: string
  type: "oauth" | "oidc"
  /** The default issuer; `"required"` when it must come from the options or `AUTH_<ID>_ISSUER`. */
  issuer?: string | "required"
  /** An issuer to configure for the tests when `issuer` is `"required"`. */
  tenantIssuer?: string
  /** Full URLs, compared by origin, path and query (the scope apart, as a set). */
  authorization?: string
  token?: string
  userinfo?: string
  scope: string
  clientAuth?: "client_secret_basic" | "client_secret_post"
  idTokenAlg?: string
  /** Checks besides `pkce` that the provider must run. */
  checks?: ("state" | "nonce")[]
  /** The fixture's file name without `.json` (default: the id). */
  fixture?: string
  /** The token set handed to `profile()` (and to a custom userinfo request). */
  tokens?: TokenSet
  user: User
}

/** The fixture answer of a provider, as its userinfo endpoint (or ID token) gives it. */
export function profileFixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(__dirname, "../../fixtures/profiles", `${name}.json`), "utf8")) as Record<
    string,
    unknown
  >
}

/** The environment prefix of an id, written out here rather than taken from the code under test. */
const prefixOf = (id: string) => `AUTH_${id.toUpperCase().replace(/-/g, "_")}_`

/** The provider as the core resolves it from `input` (factory or object) and `env`, environment inference included. */
export function resolveOne(input: unknown, env: Record<string, string> = {}): ResolvedOAuthProvider {
  const config = { providers: [input], secret: "x".repeat(32) } as AuthConfig
  setEnvDefaults(env, config, true)
  const [resolved] = resolveProviders(config.providers as OAuthConfig[], { env })
  return resolved as ResolvedOAuthProvider
}

function sameUrl(actual: string | undefined, expected: string): void {
  expect(actual).toBeDefined()
  const a = new URL(actual as string)
  const e = new URL(expected)
  expect(`${a.origin}${a.pathname}`).toBe(`${e.origin}${e.pathname}`)
  const query = (u: URL) => Object.fromEntries([...u.searchParams].filter(([k]) => k !== "scope"))
  expect(query(a)).toEqual(query(e))
}

const scopeSet = (scope: string | undefined) => new Set((scope ?? "").split(" ").filter(Boolean))

/**
 * Declares the unit tests of one provider.
 *
 * @example
 * ```ts
 * describeProvider({ factory: Amazon, id: "amazon", name: "Amazon", type: "oauth", scope: "profile", user })
 * ```
 */
export function describeProvider(c: ProviderCase): void {
  const needsIssuer = c.issuer === "required"
  const options = {
    clientId: "client-123",
    clientSecret: "secret-456",
    ...(needsIssuer ? { issuer: c.tenantIssuer } : {}),
  }

  describe(c.id, () => {
    const provider = resolveOne(c.factory(options))

    test("builds its id, name and type", () => {
      const built = c.factory()
      expect(built.id).toBe(c.id)
      expect(built.name).toBe(c.name)
      expect(built.type).toBe(c.type)
      expect(built.style?.brandColor).toMatch(/^#[0-9a-f]{6}$/)
    })

    test("has the documented issuer, endpoints and scope", () => {
      if (needsIssuer) expect(provider.issuer).toBe(c.tenantIssuer)
      else expect(provider.issuer).toBe(c.issuer)
      const authorization = new URL(provider.authorization.url ?? "https://discovered.invalid/")
      for (const [name, value] of Object.entries(provider.authorization.params)) {
        authorization.searchParams.set(name, value)
      }
      if (c.authorization) sameUrl(authorization.href, c.authorization)
      else expect(provider.authorization.url).toBeUndefined()
      expect(scopeSet(authorization.searchParams.get("scope") ?? undefined)).toEqual(scopeSet(c.scope))
      if (c.token) sameUrl(provider.token.url, c.token)
      if (c.userinfo) sameUrl(provider.userinfo.url, c.userinfo)
    })

    test("authenticates the client and runs its checks", () => {
      expect(provider.client.token_endpoint_auth_method ?? "client_secret_basic").toBe(
        c.clientAuth ?? "client_secret_basic",
      )
      expect(provider.client.id_token_signed_response_alg).toBe(c.idTokenAlg)
      expect(provider.checks).toContain("pkce")
      for (const check of c.checks ?? []) expect(provider.checks).toContain(check)
    })

    test(`takes its client from ${prefixOf(c.id)}ID and _SECRET`, () => {
      const env: Record<string, string> = {
        [`${prefixOf(c.id)}ID`]: "env-id",
        [`${prefixOf(c.id)}SECRET`]: "env-secret",
        ...(needsIssuer ? { [`${prefixOf(c.id)}ISSUER`]: c.tenantIssuer as string } : {}),
      }
      const fromEnv = resolveOne(c.factory, env)
      expect(fromEnv.id).toBe(c.id)
      expect(fromEnv.clientId).toBe("env-id")
      expect(fromEnv.clientSecret).toBe("env-secret")
      if (needsIssuer) expect(fromEnv.issuer).toBe(c.tenantIssuer)
    })

    if (needsIssuer) {
      test("refuses to construct without an issuer (issuer_required)", () => {
        const run = () => resolveOne(c.factory({ clientId: "id", clientSecret: "secret" }))
        expect(run).toThrow(InvalidConfig)
        expect(run).toThrow(expect.objectContaining({ code: "issuer_required" }))
      })
    }

    test("maps its profile fixture to the user", async () => {
      const sample = profileFixture(c.fixture ?? c.id)
      const user = await provider.profile(sample, c.tokens ?? { access_token: "at", token_type: "bearer" })
      expect({ image: null, email: null, name: null, ...user }).toStrictEqual(c.user)
      expect(typeof user.id).toBe("string")
    })
  })
}

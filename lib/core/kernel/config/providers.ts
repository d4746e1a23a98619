/** Materialises the configured providers: factory call, user options merged over defaults, env, per-type checks. */
import { InvalidConfig, MissingAuthorize } from "../../../errors"
import { liftSecurityProfile, normalizeOAuthProvider, type ResolvedOAuthProvider } from "../../../oauth"
import type { CredentialsConfig, EmailConfig, ProviderConfig } from "../../../providers/types"
import { deepMerge } from "./merge"
import { applyProviderEnv, providerEnvPrefix, type Env } from "./env"
import { resolveWebAuthnProvider, type ResolvedWebAuthnProvider } from "../../../webauthn/provider"
import type { PasswordConfig } from "../../../password/types"
import { resolvePasswordProvider, type ResolvedPasswordProvider } from "./password"

/** A provider ready for use: merged, validated, frozen. */
export type InternalProvider =
  ResolvedOAuthProvider | CredentialsConfig | EmailConfig | ResolvedWebAuthnProvider | ResolvedPasswordProvider

const providerId = /^[a-z0-9][a-z0-9_-]*$/i
const providerTypes = ["oauth", "oidc", "email", "credentials", "webauthn", "password"]
/** Client authentication methods that send the client secret. */
const secretMethods = new Set(["client_secret_basic", "client_secret_post", "client_secret_jwt"])

/**
 * Throws a one-sentence `InvalidConfig` when `input` (the `index`th entry of `providers`) is not a provider: a module
 * namespace (`require("gatehouse-auth/providers/github")` in an old build, `import * as GitHub`), or any other object
 * without a provider `id` and `type`.
 */
export function assertIsProvider(input: unknown, index: number): void {
  if (typeof input === "function") return
  const value = input as { id?: unknown; type?: unknown; default?: unknown; [Symbol.toStringTag]?: unknown } | null
  if (value !== null && typeof value === "object") {
    const namespace = value[Symbol.toStringTag] === "Module" || "__esModule" in value
    if (namespace || (typeof value.default === "function" && value.type === undefined)) {
      throw new InvalidConfig(
        `providers[${index}] is a module namespace, not a provider: pass the factory it exports instead ` +
          "(its default export, such as `GitHub` or `GitHub({ ... })`).",
        { cause: { index } },
      )
    }
    if (typeof value.type === "string" && providerTypes.includes(value.type)) return
  }
  throw new InvalidConfig(
    `providers[${index}] is not a provider: expected what a factory of gatehouse-auth/providers/<id> returns, ` +
      `an object with an \`id\` and a \`type\` (${providerTypes.join(", ")}).`,
    { cause: { index } },
  )
}

/** Throws when an OAuth/OIDC provider lacks its client id, or the secret its client authentication method sends. */
function assertClient(provider: ProviderConfig & { type: "oauth" | "oidc" }): void {
  const prefix = providerEnvPrefix(provider.id)
  if (!provider.clientId) {
    throw new InvalidConfig(
      `The "${provider.id}" provider has no client id: set ${prefix}ID (and ${prefix}SECRET), or pass \`clientId\`.`,
      { cause: { provider: provider.id } },
    )
  }
  const method = provider.client?.token_endpoint_auth_method ?? "client_secret_basic"
  if (secretMethods.has(method) && !provider.clientSecret) {
    throw new InvalidConfig(
      `The "${provider.id}" provider has no client secret: set ${prefix}SECRET, or pass \`clientSecret\` ` +
        '(a public client sets `client: { token_endpoint_auth_method: "none" }`).',
      { cause: { provider: provider.id } },
    )
  }
}

/**
 * Refuses DPoP providers with database sessions on an adapter that cannot write a key with its tokens in one statement
 * (no `updateAccountTokens`, e.g. an Auth.js adapter): the key would be lost or stored apart from what it binds.
 *
 * @throws InvalidConfig `dpop_adapter_unsupported`.
 */
export function assertDpopStorage(
  providers: readonly InternalProvider[],
  adapter: object | undefined,
  strategy: "jwt" | "database",
): void {
  const writesTokens =
    adapter !== undefined && "updateAccountTokens" in adapter && typeof adapter.updateAccountTokens === "function"
  if (strategy !== "database" || writesTokens) return
  const dpop = providers.find((p) => "security" in p && p.security.dpop !== undefined)
  if (!dpop) return
  throw new InvalidConfig(
    `The "${dpop.id}" provider uses DPoP, which with database sessions needs an adapter with updateAccountTokens.`,
    { code: "dpop_adapter_unsupported", cause: { provider: dpop.id } },
  )
}

/**
 * Resolves every provider of the config.
 *
 * @example
 * ```ts
 * resolveProviders([GitHub()], { env: process.env })
 * ```
 */
export function resolveProviders(
  providers: readonly ProviderConfig[],
  options: {
    env: Env
    redirectProxyUrl?: string
    redirectProxyAllowedOrigins?: readonly string[]
    httpTimeout?: number
    /** Engine options of every OAuth/OIDC provider (production rules, construction warnings). */
    oauth?: Pick<Parameters<typeof normalizeOAuthProvider>[1], "production" | "logger">
  },
): InternalProvider[] {
  const seen = new Set<string>()
  const resolved = providers.map((input, index): InternalProvider | PasswordConfig => {
    assertIsProvider(input, index)
    const provider = typeof input === "function" ? (input as () => ProviderConfig)() : input
    const { options: userOptions, ...defaults } = provider as ProviderConfig & { options?: unknown }
    const overrides = liftSecurityProfile(userOptions, String((defaults as { id?: unknown }).id))
    const merged = applyProviderEnv(deepMerge(defaults as ProviderConfig, overrides), options.env)
    if (typeof merged.id !== "string" || !providerId.test(merged.id)) {
      throw new InvalidConfig("Invalid provider id", { cause: { id: merged.id } })
    }
    if (seen.has(merged.id)) throw new InvalidConfig("Duplicate provider id", { cause: { id: merged.id } })
    seen.add(merged.id)
    switch (merged.type) {
      case "oauth":
      case "oidc":
        assertClient(merged)
        return normalizeOAuthProvider(merged, {
          redirectProxyUrl: options.redirectProxyUrl,
          redirectProxyAllowedOrigins: options.redirectProxyAllowedOrigins,
          httpTimeout: options.httpTimeout,
          ...options.oauth,
        })
      case "credentials":
        if (typeof merged.authorize !== "function") {
          throw new MissingAuthorize(
            `The "${merged.id}" credentials provider has no authorize(): pass \`authorize(credentials)\` returning ` +
              "the user, or null to reject.",
          )
        }
        return Object.freeze(merged)
      case "email":
        return Object.freeze(merged)
      case "webauthn":
        return resolveWebAuthnProvider(merged, options.env)
      case "password":
        // Completed below, once the email provider whose SMTP server it may share is known.
        return merged
      default:
        throw new InvalidConfig("Unknown provider type", { cause: { id: (merged as ProviderConfig).id } })
    }
  })
  const mailer = resolved.find((p): p is EmailConfig => p.type === "email" && Boolean((p as EmailConfig).server))
  return resolved.map((provider) =>
    provider.type === "password"
      ? resolvePasswordProvider(provider as PasswordConfig, {
          production: options.oauth?.production ?? options.env.NODE_ENV === "production",
          authUrl: options.env.AUTH_URL,
          logger: options.oauth?.logger,
          mailer,
        })
      : (provider as InternalProvider),
  )
}

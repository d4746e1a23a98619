/** Materialises the configured providers: factory call, user options merged over defaults, env, per-type checks. */
import { InvalidConfig, MissingAuthorize } from "../../errors"
import { normalizeOAuthProvider, type ResolvedOAuthProvider } from "../../oauth"
import type { CredentialsConfig, EmailConfig, ProviderConfig, WebAuthnConfig } from "../../providers/types"
import { deepMerge } from "./merge"
import { applyProviderEnv, type Env } from "./env"

/** A provider ready for use: merged, validated, frozen. */
export type InternalProvider = ResolvedOAuthProvider | CredentialsConfig | EmailConfig | WebAuthnConfig

const providerId = /^[a-z0-9][a-z0-9_-]*$/i

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
  options: { env: Env; redirectProxyUrl?: string },
): InternalProvider[] {
  const seen = new Set<string>()
  return providers.map((input) => {
    const provider = typeof input === "function" ? (input as () => ProviderConfig)() : input
    const { options: userOptions, ...defaults } = provider as ProviderConfig & { options?: unknown }
    const merged = applyProviderEnv(deepMerge(defaults as ProviderConfig, userOptions), options.env)
    if (typeof merged.id !== "string" || !providerId.test(merged.id)) {
      throw new InvalidConfig("Invalid provider id", { cause: { id: merged.id } })
    }
    if (seen.has(merged.id)) throw new InvalidConfig("Duplicate provider id", { cause: { id: merged.id } })
    seen.add(merged.id)
    switch (merged.type) {
      case "oauth":
      case "oidc":
        return normalizeOAuthProvider(merged, { redirectProxyUrl: options.redirectProxyUrl })
      case "credentials":
        if (typeof merged.authorize !== "function") {
          throw new MissingAuthorize("Must define an authorize() handler to use credentials authentication provider")
        }
        return Object.freeze(merged)
      case "email":
      case "webauthn":
        return Object.freeze(merged)
      default:
        throw new InvalidConfig("Unknown provider type", { cause: { id: (merged as ProviderConfig).id } })
    }
  })
}

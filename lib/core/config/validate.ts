/** Config checks that need the whole resolved config: adapter requirements and feature gates. */
import { requiredAdapterMethods, type Adapter } from "../../adapters/types"
import { ExperimentalFeatureNotEnabled, InvalidConfig, MissingAdapter, MissingAdapterMethods } from "../../errors"
import type { AuthConfig } from "../types"
import type { ResolvedConfig } from "./resolve"

function assertMethods(adapter: Adapter, methods: readonly (keyof Adapter)[]): void {
  const missing = methods.filter((m) => typeof adapter[m] !== "function")
  if (missing.length > 0) {
    throw new MissingAdapterMethods(`Required adapter methods were missing: ${missing.join(", ")}`)
  }
}

function assertPositive(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new InvalidConfig(`Invalid ${name}`, { cause: { [name]: value } })
}

/**
 * Throws the first problem of a resolved config (reference order: providers, strategy, adapter methods).
 *
 * @example
 * ```ts
 * assertConfig(resolved, userConfig)
 * ```
 */
export function assertConfig(resolved: ResolvedConfig, config: AuthConfig): void {
  assertPositive("session.maxAge", resolved.session.maxAge)
  assertPositive("session.updateAge", resolved.session.updateAge)
  assertPositive("jwt.maxAge", resolved.jwt.maxAge)
  if (resolved.session.strategy !== "jwt" && resolved.session.strategy !== "database") {
    throw new InvalidConfig("Invalid session.strategy", { cause: { strategy: resolved.session.strategy } })
  }
  for (const [key, value] of Object.entries(resolved.pages)) {
    if (value !== undefined && (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//"))) {
      throw new InvalidConfig("Pages must be paths starting with a single /", { cause: { page: key } })
    }
  }

  const types = new Set(resolved.providers.map((p) => p.type))
  const adapter = resolved.adapter
  if (types.has("email")) {
    if (!adapter) throw new MissingAdapter("Email login requires an adapter")
    assertMethods(adapter, requiredAdapterMethods.email)
  }
  if (resolved.session.strategy === "database") {
    if (!adapter) throw new MissingAdapter("Database session requires an adapter")
    assertMethods(adapter, requiredAdapterMethods.database)
  }
  if (types.has("webauthn")) {
    if (!config.experimental?.enableWebAuthn) {
      throw new ExperimentalFeatureNotEnabled("WebAuthn is an experimental feature. Set `experimental.enableWebAuthn`")
    }
    if (!adapter) throw new MissingAdapter("WebAuthn requires an adapter")
    assertMethods(adapter, requiredAdapterMethods.webauthn)
  }
}

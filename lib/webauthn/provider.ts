/** Resolves a WebAuthn provider at construction: the `relyingParty` alias, the relying party from config or AUTH_URL. */
import { InvalidConfig } from "../errors"
import type { RelyingParty, WebAuthnConfig } from "../providers/types"

/** The environment variables the provider reads (`NODE_ENV`, `AUTH_URL`). */
export type Env = Record<string, string | undefined>

/** A WebAuthn provider ready for use. `rp` is absent only outside production without config or `AUTH_URL`. */
export interface ResolvedWebAuthnProvider extends WebAuthnConfig {
  readonly rp?: Readonly<{ ids: readonly string[]; name: string; origins: readonly string[] }>
  /** The top-level origins a cross-origin (iframe) ceremony may come from (`relyingParty.allowCrossOrigin`). */
  readonly topOrigins: readonly string[]
}

const list = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : (Array.isArray(value) ? value : [value]).filter((v) => typeof v === "string" && v !== "")

/** A relying-party or top-level origin must be exactly `scheme://host[:port]`, as a browser reports it. */
function assertOrigin(provider: string, origin: string): void {
  let parsed: URL
  try {
    parsed = new URL(origin)
  } catch {
    throw new InvalidConfig("Invalid WebAuthn relying party origin", { cause: { provider, origin } })
  }
  if (parsed.origin !== origin) {
    throw new InvalidConfig("A WebAuthn origin is scheme://host[:port] only", { cause: { provider, origin } })
  }
}

/** Production is any `NODE_ENV` other than unset, `development` or `test`. */
export function isProduction(env: Env): boolean {
  const mode = env.NODE_ENV
  return mode !== undefined && mode !== "" && mode !== "development" && mode !== "test"
}

function authUrlOf(env: Env): URL | undefined {
  try {
    return env.AUTH_URL ? new URL(env.AUTH_URL) : undefined
  } catch {
    return undefined
  }
}

/**
 * Merges the relying-party options and fixes the expected origins and RP IDs: the configured ones, else those of
 * `AUTH_URL`. In production a provider with neither is a construction error (B.2 rule 2): the request's Host or
 * Origin header never decides what a signature is checked against.
 *
 * @example
 * ```ts
 * resolveWebAuthnProvider(merged, process.env).rp // { ids: ["app.example"], name: "App", origins: [...] }
 * ```
 */
export function resolveWebAuthnProvider(provider: WebAuthnConfig, env: Env): ResolvedWebAuthnProvider {
  const authUrl = authUrlOf(env)
  const configured: Partial<RelyingParty> = {
    ...(provider.relayingParty ?? {}),
    ...(provider.relyingParty ?? {}),
    ...(provider.getRelayingParty?.({ provider, authUrl }) ?? {}),
  }
  let origins = list(configured.origin)
  let ids = list(configured.id)
  if (origins.length === 0 && authUrl) origins = [authUrl.origin]
  if (ids.length === 0 && origins.length > 0) ids = [new URL(origins[0] as string).hostname]
  const topOrigins = Object.freeze(list(configured.allowCrossOrigin))
  for (const origin of [...origins, ...topOrigins]) assertOrigin(provider.id, origin)
  if (origins.length === 0 || ids.length === 0) {
    if (isProduction(env)) {
      throw new InvalidConfig("WebAuthn needs AUTH_URL or relyingParty.origin in production", {
        cause: { provider: provider.id },
      })
    }
    return Object.freeze({ ...provider, topOrigins })
  }
  // Auth.js's defaults: the first entry of a list, else the host (with its port) of the first origin.
  const name = list(configured.name as string | string[] | undefined)[0] ?? new URL(origins[0] as string).host
  return Object.freeze({
    ...provider,
    rp: Object.freeze({ ids: Object.freeze(ids), name, origins: Object.freeze(origins) }),
    topOrigins,
  })
}

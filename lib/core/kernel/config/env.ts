/** Environment inference: `AUTH_*` variables fill in what the config leaves out. */
import type { AuthConfig } from "../types"
import type { Provider, ProviderConfig } from "../../../providers/types"
import { createLogger, type LoggerInstance } from "../../../logger"

export type Env = Record<string, string | undefined>

/**
 * A view of `source` (default `process.env`) in which a variable the runtime refuses to read (Deno with
 * `--allow-env` scoped to other names throws `NotCapable`) reads as unset. Listing the variables is left to fail, so
 * a caller can tell that it cannot list them.
 *
 * @example
 * ```ts
 * permittedEnv().AUTH_SECRET_1 // undefined under `deno run --allow-env=AUTH_SECRET`, instead of a throw
 * ```
 */
export function permittedEnv(source: Env = process.env): Env {
  const read = (name: string | symbol): string | undefined => {
    try {
      const value: unknown = Reflect.get(source, name)
      return typeof value === "string" ? value : undefined
    } catch {
      return undefined
    }
  }
  // The proxy stands over an empty object: the runtime's own checks of a proxy's answers consult the target, and
  // Deno's `process.env` throws there too.
  return new Proxy({} as Env, {
    get: (_, name) => read(name),
    has: (_, name) => read(name) !== undefined,
    ownKeys: () => Reflect.ownKeys(source),
    getOwnPropertyDescriptor(_, name) {
      const value = read(name)
      return value === undefined ? undefined : { value, enumerable: true, configurable: true, writable: false }
    },
  })
}

/** Parses a boolean-ish env value: `false`/`0`/`no`/`off`/empty are false (the reference counts "false" as true). */
export function envFlag(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined
  return !/^(?:false|0|no|off|)$/i.test(value.trim())
}

/**
 * Whether `env` is a production environment: any `NODE_ENV` other than unset, `development` or `test` (so `staging`
 * gets production's rules: a secret is required and the host is not trusted by default).
 *
 * @example
 * ```ts
 * isProduction({ NODE_ENV: "staging" }) // true
 * ```
 */
export function isProduction(env: Env): boolean {
  const mode = env.NODE_ENV
  return mode !== undefined && mode !== "" && mode !== "development" && mode !== "test"
}

/** The secrets from the environment, newest first: `AUTH_SECRET_3`, `_2`, `_1`, then `AUTH_SECRET`. */
export function envSecrets(env: Env): string[] {
  const out: string[] = []
  if (env.AUTH_SECRET) out.push(env.AUTH_SECRET)
  for (const n of [1, 2, 3]) {
    const value = env[`AUTH_SECRET_${n}`]
    if (value) out.unshift(value)
  }
  return out
}

/** The env prefix of a provider: `AUTH_<ID>_` with the id upper-cased and `-` as `_`. */
export function providerEnvPrefix(id: string): string {
  return `AUTH_${id.toUpperCase().replace(/-/g, "_")}_`
}

function withProviderEnv(provider: Provider, env: Env): Provider {
  if (typeof provider === "function") {
    const probe = provider({})
    const prefix = providerEnvPrefix(probe.id)
    // As Auth.js: the factory is called with the values, and what it returns gets them too where it lacks them.
    const made = provider({
      clientId: env[`${prefix}ID`],
      clientSecret: env[`${prefix}SECRET`],
      issuer: env[`${prefix}ISSUER`],
      apiKey: env[`${prefix}KEY`],
    })
    return typeof made?.id === "string" ? applyProviderEnv(made, env) : made
  }
  // An object provider gets the top-level fields it lacks; its `options` still win when the core merges them. Anything
  // without a string id is left for the resolver to reject with a clear message.
  return typeof provider?.id === "string" ? applyProviderEnv(provider, env) : provider
}

/**
 * Fills env-derived defaults into `config` (mutating it, as the reference's API does): `basePath` from `AUTH_URL`,
 * `secret` from `AUTH_SECRET[_1.._3]`, `redirectProxyUrl` and its allowed origins, `trustHost`, and each provider's
 * `AUTH_<ID>_ID/_SECRET/_ISSUER/_KEY` (passed to provider factories, or set where missing on provider objects).
 * Warnings go to `logger`, else to `config.logger`. Gatehouse's own resolution runs this on a copy and never mutates
 * the caller's config.
 *
 * @example
 * ```ts
 * setEnvDefaults(process.env, config)
 * ```
 */
export function setEnvDefaults(
  env: Env,
  config: AuthConfig,
  suppressBasePathWarning = false,
  logger?: Pick<LoggerInstance, "warn">,
): void {
  if (env.AUTH_URL) {
    try {
      const url = new URL(env.AUTH_URL)
      if (config.basePath) {
        if (!suppressBasePathWarning) (logger ?? createLogger(config)).warn("env-url-basepath-redundant")
      } else {
        config.basePath = url.pathname
      }
    } catch {
      // An unparsable AUTH_URL is ignored.
    }
  }
  config.basePath ??= "/auth"

  const hasSecret = Array.isArray(config.secret) ? config.secret.length > 0 : Boolean(config.secret)
  if (!hasSecret) config.secret = envSecrets(env)

  config.redirectProxyUrl ??= env.AUTH_REDIRECT_PROXY_URL
  config.redirectProxyAllowedOrigins ??= env.AUTH_REDIRECT_PROXY_ALLOWED_ORIGINS?.split(",").filter((o) => o.trim())
  config.trustHost ??=
    (env.AUTH_URL ? true : undefined) ??
    envFlag(env.AUTH_TRUST_HOST) ??
    envFlag(env.VERCEL) ??
    envFlag(env.CF_PAGES) ??
    !isProduction(env)

  config.providers = config.providers.map((p) => withProviderEnv(p, env))
}

/** Applies `AUTH_<ID>_*` to an already materialised provider, filling only what is missing. */
export function applyProviderEnv(provider: ProviderConfig, env: Env): ProviderConfig {
  const prefix = providerEnvPrefix(provider.id)
  if (provider.type === "oauth" || provider.type === "oidc") {
    return {
      ...provider,
      clientId: provider.clientId ?? env[`${prefix}ID`],
      clientSecret: provider.clientSecret ?? env[`${prefix}SECRET`],
      issuer: provider.issuer ?? env[`${prefix}ISSUER`],
    }
  }
  if (provider.type === "email") return { ...provider, apiKey: provider.apiKey ?? env[`${prefix}KEY`] }
  return provider
}

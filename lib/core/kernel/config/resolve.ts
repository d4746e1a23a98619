/** Resolves a user's `AuthConfig` once: env defaults, provider merging, defaults, validation, freezing. */
import { randomBytes } from "node:crypto"
import { resolveAccessTokens } from "./access-tokens"
import { resolveNative } from "./native"
import { InvalidConfig } from "../../../errors"
import { encode, decode } from "../../../jwt"
import { createLogger } from "../../../logger"
import type { ProviderConfig } from "../../../providers/types"
import { resolveCookies } from "../cookies/names"
import { raw as rawMarker, skipCSRFCheck as skipMarker } from "../../../symbols"
import type { AuthConfig, JWTOptions, SessionOptions } from "../types"
import { DEFAULT_ADAPTER_TIMEOUT, wrapAdapter } from "./adapter"
import { defaultCallbacks } from "./callbacks"
import { wrapEvents } from "./events"
import { isProduction, permittedEnv, setEnvDefaults, type Env } from "./env"
import { assertDpopStorage, assertIsProvider, resolveProviders } from "./providers"
import { DEFAULT_HTTP_TIMEOUT } from "../../../oauth/fetch"
import { adapterStores } from "./stores"
import { assertEmailProviders, assertSettings } from "./validate"
import { cachedSessionAdapter, resolveSessionCache, sessionCacheOf } from "./session-cache"
import type { ResolvedConfig } from "./types"
import { createRateLimiter } from "../rate-limit/limiter"
import { MemoryStore } from "../../../storage/memory/store"
import { resolveSecrets, untrustedHost } from "./secret"
import { warnEnvTypos } from "./env-typos"
import { resolveTwoFactor } from "./two-factor"
import { resolveAudit } from "../audit/config"
import { recordAudit } from "../audit/record"
import { builtInAccountMailer, resolveAccounts } from "../accounts/config"

export interface ResolveOptions {
  env?: Env
  /** The request URL, only to name it in an `UntrustedHost` message. */
  requestUrl?: string
}

const THIRTY_DAYS = 30 * 24 * 60 * 60

function normalizeBasePath(basePath: string): string {
  if (!basePath.startsWith("/") || /[?#\s\\]/.test(basePath) || basePath.includes("//")) {
    throw new InvalidConfig("Invalid basePath", { cause: { basePath } })
  }
  return basePath.replace(/\/+$/, "")
}

/**
 * Resolves, validates and freezes a config. Throws a clear `AuthError` for a bad config.
 *
 * @example
 * ```ts
 * const resolved = resolveConfig({ providers: [Credentials({ authorize })], secret: process.env.AUTH_SECRET })
 * ```
 */
export function resolveConfig(userConfig: AuthConfig, options: ResolveOptions = {}): ResolvedConfig {
  const env = options.env ?? permittedEnv(process.env)
  const logger = createLogger({ debug: userConfig.debug, logger: userConfig.logger })
  if (!Array.isArray(userConfig.providers)) {
    const typo = Object.keys(userConfig).find((key) => /^providers?$/i.test(key) && key !== "providers")
    throw new InvalidConfig(
      `The config has no \`providers\` array${typo ? ` (it has \`${typo}\`: did you mean \`providers\`?)` : ""}; ` +
        "list the sign-in methods there, e.g. `providers: [GitHub]`.",
    )
  }
  // Before the env is applied: a module namespace or a stray object has no provider id to derive variables from.
  userConfig.providers.forEach(assertIsProvider)
  // Fail closed: an AUTH_URL that is set but unusable would otherwise leave the origin to the Host header.
  let authUrl: URL | undefined
  if (env.AUTH_URL) {
    authUrl = URL.canParse(env.AUTH_URL) ? new URL(env.AUTH_URL) : undefined
    if (!authUrl || !/^https?:$/.test(authUrl.protocol)) {
      throw new InvalidConfig("AUTH_URL is not a valid http(s) URL: fix or unset the AUTH_URL environment variable", {
        cause: { variable: "AUTH_URL" },
      })
    }
  }
  const config: AuthConfig = { ...userConfig, providers: [...userConfig.providers] }
  setEnvDefaults(env, config, false, logger)

  warnEnvTypos(env, config.providers as ProviderConfig[], logger)
  // The secret first: it is the one fix every production app needs, the host only when AUTH_URL is not set.
  const secret = resolveSecrets(config.secret, env, logger)
  if (config.trustHost !== true) throw untrustedHost(env, options.requestUrl)

  const basePath = normalizeBasePath(config.basePath ?? "/auth")
  const adapterTimeout = timeoutOption("adapterTimeout", config.adapterTimeout, DEFAULT_ADAPTER_TIMEOUT)
  const httpTimeout = timeoutOption("httpTimeout", config.httpTimeout, DEFAULT_HTTP_TIMEOUT)
  const strategy = config.session?.strategy ?? (config.adapter ? "database" : "jwt")
  const sessionCache = strategy === "database" ? resolveSessionCache(config.session?.cache) : undefined
  const userAdapter = config.adapter
  const wrapped = userAdapter ? wrapAdapter(userAdapter, logger, adapterTimeout) : undefined
  const adapter =
    userAdapter && wrapped && sessionCache
      ? cachedSessionAdapter(wrapped, sessionCache, sessionCacheOf(userAdapter))
      : wrapped
  const providers = resolveProviders(config.providers as ProviderConfig[], {
    env,
    redirectProxyUrl: config.redirectProxyUrl,
    redirectProxyAllowedOrigins: config.redirectProxyAllowedOrigins,
    httpTimeout,
    oauth: { production: isProduction(env), logger },
  })

  assertDpopStorage(providers, userAdapter, strategy)
  const twoFactor = resolveTwoFactor(config.twoFactor, adapter, providers)
  const sessionMaxAge = config.session?.maxAge ?? THIRTY_DAYS
  const storeIpOption = (value: unknown): boolean | "truncate" => {
    if (value === undefined || value === false) return false
    if (value === true || value === "truncate") return value
    throw new InvalidConfig('session.storeIp must be true, false or "truncate"')
  }
  const session: SessionOptions = Object.freeze({
    strategy,
    maxAge: sessionMaxAge,
    updateAge: config.session?.updateAge ?? 24 * 60 * 60,
    freshAge: config.session?.freshAge ?? 900,
    generateSessionToken: config.session?.generateSessionToken ?? (() => randomBytes(32).toString("hex")),
    refresh: Object.freeze({ signOutOnError: config.session?.refresh?.signOutOnError === true }),
    storeIp: storeIpOption(config.session?.storeIp),
    bearer: config.session?.bearer === true,
    ...(sessionCache ? { cache: sessionCache } : {}),
  })
  const jwt: JWTOptions = Object.freeze({
    maxAge: config.jwt?.maxAge ?? sessionMaxAge,
    encode: config.jwt?.encode ?? encode,
    decode: config.jwt?.decode ?? decode,
  })

  assertSettings(session, jwt, config.pages ?? {})

  const newMemoryStore = () =>
    MemoryStore({ production: env.NODE_ENV === "production", warn: (code) => logger.warn(code) })
  const kv = config.store ?? config.adapter?.store ?? newMemoryStore()
  const kvSource = config.store ? "config" : config.adapter?.store ? "adapter" : "memory"
  const events = Object.freeze(wrapEvents(config.events ?? {}, logger))
  const audit = resolveAudit(config.audit, userAdapter, adapterTimeout)
  // The limiter's first refusal per rule and key in a window is also the audit event `ratelimit.hit`.
  const limiterEvents: typeof events = Object.freeze({
    ...events,
    rateLimited: async (message: Parameters<typeof events.rateLimited>[0]) => {
      await events.rateLimited(message)
      await recordAudit(
        { config: { audit, session, logger }, clientIp: () => message.ip ?? null },
        { type: "ratelimit.hit", userId: null, outcome: "failure", reason: message.rule },
      )
    },
  })
  const resolved: ResolvedConfig = {
    basePath,
    secret: Object.freeze([...secret]),
    providers: Object.freeze(providers),
    providerById: new Map(providers.map((p) => [p.id, p])),
    stores: adapterStores(adapter, providers, session.strategy),
    adapterTimeout,
    httpTimeout,
    session,
    jwt,
    callbacks: Object.freeze({ ...defaultCallbacks, ...stripUndefined(config.callbacks ?? {}) }),
    hasJwtCallback: typeof config.callbacks?.jwt === "function",
    userAuthorized: config.callbacks?.authorized,
    events,
    pages: Object.freeze({ ...(config.pages ?? {}) }),
    theme: Object.freeze(config.theme ?? { colorScheme: "auto", logo: "", brandColor: "", buttonText: "" }),
    logger,
    debug: config.debug === true,
    useSecureCookies: config.useSecureCookies,
    cookies: Object.freeze({
      secure: resolveCookies(true, config.cookies),
      insecure: resolveCookies(false, config.cookies),
    }),
    skipCSRFCheck: config.skipCSRFCheck === skipMarker,
    raw: config.raw === rawMarker,
    redirectProxyUrl: config.redirectProxyUrl,
    authUrl,
    store: kv,
    storeSource: kvSource,
    tokens: Object.freeze({ encryptAtRest: config.tokens?.encryptAtRest === true }),
    rateLimit: createRateLimiter(
      {
        options: config.rateLimit,
        production: env.NODE_ENV === "production",
        secret: secret[0]!,
        kv,
        kvSource,
        events: limiterEvents,
        logger,
      },
      newMemoryStore,
    ),
    audit,
    accounts: resolveAccounts(config, adapter, builtInAccountMailer(providers, config.theme)),
    features: Object.freeze({
      passkeyRoutes: config.features?.passkeyRoutes === true,
      sessionRoutes: config.features?.sessionRoutes === true,
      accountRoutes: config.features?.accountRoutes === true,
      adminRoutes: config.features?.adminRoutes === true,
    }),
    ...accessTokensOf(config, env, authUrl),
    ...nativeOf(config, logger),
    ...(twoFactor ? { twoFactor } : {}),
  }
  // WebAuthn is generally available: the Auth.js flag is accepted, ignored, and noted once per resolved config.
  if (config.experimental?.enableWebAuthn === true) logger.warn("experimental-webauthn")
  assertEmailProviders(resolved, env, logger)
  if (resolved.debug) logger.warn("debug-enabled")
  return Object.freeze(resolved)
}

function nativeOf(config: AuthConfig, logger: { debug(message: string): void }) {
  const native = resolveNative(config.native, (code) => logger.debug(`warning ${code}`))
  return native ? { native } : {}
}

function accessTokensOf(config: AuthConfig, env: Record<string, string | undefined>, authUrl: URL | undefined) {
  const accessTokens = resolveAccessTokens(config.accessTokens, { production: isProduction(env), authUrl })
  return accessTokens ? { accessTokens } : {}
}

/** A timeout option: a positive number of ms (at most 2^31 - 1, the longest timer Node keeps), or the default. */
function timeoutOption(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > 2 ** 31 - 1) {
    throw new InvalidConfig(`Invalid ${name}`, { cause: { [name]: value } })
  }
  return value
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

const resolvedByConfig = new WeakMap<object, ResolvedConfig>()

/**
 * Resolves a config once per object identity (the lazy `(request) => config` form returns the same object to reuse
 * its resolution).
 *
 * @example
 * ```ts
 * const resolved = resolveConfigCached(config)
 * ```
 */
export function resolveConfigCached(config: AuthConfig, options: ResolveOptions = {}): ResolvedConfig {
  const cached = resolvedByConfig.get(config)
  if (cached) return cached
  const resolved = resolveConfig(config, options)
  resolvedByConfig.set(config, resolved)
  return resolved
}

/** @deprecated import it from `./types` (kept so branches written before the move still compile). */
export type { ResolvedConfig } from "./types"

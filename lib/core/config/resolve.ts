/** Resolves a user's `AuthConfig` once: env defaults, provider merging, defaults, validation, freezing. */
import { randomBytes } from "node:crypto"
import type { Adapter } from "../../adapters/types"
import { EventError, MissingSecret, UntrustedHost, InvalidConfig } from "../../errors"
import { encode, decode } from "../../jwt"
import { createLogger, type LoggerInstance } from "../../logger"
import type { ProviderConfig } from "../../providers/types"
import { resolveCookies } from "../cookies/names"
import {
  raw as rawMarker,
  skipCSRFCheck as skipMarker,
  type AuthConfig,
  type CallbacksOptions,
  type CookiesOptions,
  type EventCallbacks,
  type JWTOptions,
  type PagesOptions,
  type SessionOptions,
  type Theme,
} from "../types"
import { wrapAdapter } from "./adapter"
import { defaultCallbacks } from "./callbacks"
import { setEnvDefaults, type Env } from "./env"
import { resolveProviders, type InternalProvider } from "./providers"
import { assertConfig } from "./validate"
import { createSessionCache, type SessionCache } from "../session/cache"

/** The config as the core uses it: complete, validated and frozen. */
export interface ResolvedConfig {
  /** Base path without a trailing slash; `""` when mounted at the root. */
  readonly basePath: string
  /** Newest first: the first encrypts and signs, all decrypt and verify. */
  readonly secret: readonly string[]
  readonly providers: readonly InternalProvider[]
  readonly providerById: ReadonlyMap<string, InternalProvider>
  readonly adapter?: Adapter
  readonly session: Readonly<SessionOptions>
  readonly jwt: Readonly<JWTOptions>
  readonly callbacks: Readonly<CallbacksOptions>
  readonly userCallbacks: Readonly<Partial<CallbacksOptions>>
  readonly events: Readonly<EventCallbacks>
  readonly pages: Readonly<Partial<PagesOptions>>
  readonly theme: Readonly<Theme>
  readonly logger: LoggerInstance
  readonly debug: boolean
  readonly trustHost: boolean
  readonly useSecureCookies?: boolean
  /** Cookie names and options for secure (https) and insecure requests. */
  readonly cookies: { readonly secure: CookiesOptions; readonly insecure: CookiesOptions }
  readonly skipCSRFCheck: boolean
  readonly raw: boolean
  readonly redirectProxyUrl?: string
  /** `AUTH_URL`: when set, its origin is the origin of every generated URL. */
  readonly authUrl?: URL
  readonly experimental: Readonly<{ enableWebAuthn: boolean }>
  /** Decrypted-session cache for server-side reads (per config instance). */
  readonly sessionCache: SessionCache
}

export interface ResolveOptions {
  env?: Env
  /** The request URL, only to name it in an `UntrustedHost` message. */
  requestUrl?: string
}

const THIRTY_DAYS = 30 * 24 * 60 * 60
let devSecret: string | undefined

function normalizeBasePath(basePath: string): string {
  if (!basePath.startsWith("/") || /[?#\s\\]/.test(basePath) || basePath.includes("//")) {
    throw new InvalidConfig("Invalid basePath", { cause: { basePath } })
  }
  return basePath.replace(/\/+$/, "")
}

function wrapEvents(events: Partial<EventCallbacks>, logger: LoggerInstance): EventCallbacks {
  const names: (keyof EventCallbacks)[] = ["signIn", "signOut", "createUser", "updateUser", "linkAccount", "session"]
  const out = {} as Record<keyof EventCallbacks, (message: never) => Promise<void>>
  for (const name of names) {
    const handler = events[name] as ((message: unknown) => unknown) | undefined
    out[name] = async (message: unknown) => {
      if (!handler) return
      try {
        await handler(message)
      } catch (error) {
        logger.error(new EventError(error as Error))
      }
    }
  }
  return out as unknown as EventCallbacks
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
  const env = options.env ?? process.env
  const logger = createLogger({ debug: userConfig.debug, logger: userConfig.logger })
  const config: AuthConfig = { ...userConfig, providers: [...(userConfig.providers ?? [])] }
  setEnvDefaults(env, config, false, logger)

  if (config.trustHost !== true) {
    throw new UntrustedHost(
      options.requestUrl ? `Host must be trusted. URL was: ${options.requestUrl}` : "Host must be trusted",
    )
  }

  let secret = (Array.isArray(config.secret) ? config.secret : [config.secret]).filter(
    (s): s is string => typeof s === "string" && s.length > 0,
  )
  if (secret.length === 0) {
    if (env.NODE_ENV === "production") throw new MissingSecret("Please define a `secret`")
    if (!devSecret) {
      devSecret = randomBytes(32).toString("hex")
      logger.warn("missing-secret-dev")
    }
    secret = [devSecret]
  }

  const basePath = normalizeBasePath(config.basePath ?? "/auth")
  const adapter = config.adapter ? wrapAdapter(config.adapter, logger) : undefined
  const providers = resolveProviders(config.providers as ProviderConfig[], {
    env,
    redirectProxyUrl: config.redirectProxyUrl,
  })

  const sessionMaxAge = config.session?.maxAge ?? THIRTY_DAYS
  const session: SessionOptions = Object.freeze({
    strategy: config.session?.strategy ?? (adapter ? "database" : "jwt"),
    maxAge: sessionMaxAge,
    updateAge: config.session?.updateAge ?? 24 * 60 * 60,
    generateSessionToken: config.session?.generateSessionToken ?? (() => randomBytes(32).toString("hex")),
  })
  const jwt: JWTOptions = Object.freeze({
    maxAge: config.jwt?.maxAge ?? sessionMaxAge,
    encode: config.jwt?.encode ?? encode,
    decode: config.jwt?.decode ?? decode,
  })

  let authUrl: URL | undefined
  if (env.AUTH_URL) {
    try {
      authUrl = new URL(env.AUTH_URL)
    } catch {
      authUrl = undefined
    }
  }

  const resolved: ResolvedConfig = {
    basePath,
    secret: Object.freeze([...secret]),
    providers: Object.freeze(providers),
    providerById: new Map(providers.map((p) => [p.id, p])),
    adapter,
    session,
    jwt,
    callbacks: Object.freeze({ ...defaultCallbacks, ...stripUndefined(config.callbacks ?? {}) }),
    userCallbacks: Object.freeze({ ...(config.callbacks ?? {}) }),
    events: Object.freeze(wrapEvents(config.events ?? {}, logger)),
    pages: Object.freeze({ ...(config.pages ?? {}) }),
    theme: Object.freeze(config.theme ?? { colorScheme: "auto", logo: "", brandColor: "", buttonText: "" }),
    logger,
    debug: config.debug === true,
    trustHost: true,
    useSecureCookies: config.useSecureCookies,
    cookies: Object.freeze({
      secure: resolveCookies(true, config.cookies),
      insecure: resolveCookies(false, config.cookies),
    }),
    skipCSRFCheck: config.skipCSRFCheck === skipMarker,
    raw: config.raw === rawMarker,
    redirectProxyUrl: config.redirectProxyUrl,
    authUrl,
    experimental: Object.freeze({ enableWebAuthn: config.experimental?.enableWebAuthn === true }),
    sessionCache: createSessionCache(),
  }
  assertConfig(resolved, config)
  if (resolved.debug) logger.warn("debug-enabled")
  return Object.freeze(resolved)
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

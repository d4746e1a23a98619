/** Resolves `config.twoFactor` once: defaults, the checks of the spec, and the adapter's two-factor methods. */
import { InvalidConfig, MissingAdapter, MissingAdapterMethods } from "../../../errors"
import type { Adapter, AdapterUser, TwoFactorAdapter } from "../../../storage/adapter"
import type { Awaitable, TwoFactorOptions, User } from "../types"
import type { InternalProvider } from "./providers"

/** `twoFactor` as the core reads it. */
export interface ResolvedTwoFactor {
  readonly issuer?: string
  readonly methods: readonly ("totp" | "email")[]
  readonly required: (user: User | AdapterUser) => Awaitable<boolean>
  readonly passkeys: "skip" | "enforce"
  /** `false`: no checkbox, trust cookies ignored. */
  readonly trustDevice: false | { readonly maxAge: number }
  readonly revokeOtherSessionsOnEnable: boolean
  /** The email provider that sends second-factor codes (when one is configured). */
  readonly emailProvider?: string
  /** The adapter's two-factor methods (wrapped: timeouts, coded errors). */
  readonly store: TwoFactorAdapter
}

const KEYS = new Set([
  "issuer",
  "methods",
  "required",
  "passkeys",
  "trustDevice",
  "revokeOtherSessionsOnEnable",
  "emailProvider",
])
const ADAPTER_METHODS = ["getTwoFactor", "upsertTwoFactor", "updateTwoFactor", "deleteTwoFactor"] as const

function invalid(message: string, cause: Record<string, unknown> = {}): InvalidConfig {
  return new InvalidConfig(message, { cause })
}

/**
 * The resolved `twoFactor`, or `undefined` when it is not configured. Throws `InvalidConfig` for an unknown key or a
 * bad value, `MissingAdapter`/`MissingAdapterMethods` when the adapter cannot store two-factor rows.
 *
 * @example
 * ```ts
 * const twoFactor = resolveTwoFactor(config.twoFactor, wrappedAdapter, providers)
 * ```
 */
export function resolveTwoFactor(
  options: TwoFactorOptions | undefined,
  adapter: Adapter | undefined,
  providers: readonly InternalProvider[],
): ResolvedTwoFactor | undefined {
  if (options === undefined) return undefined
  if (typeof options !== "object" || options === null) throw invalid("twoFactor must be an object")
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key)) throw invalid(`Unknown option twoFactor.${key}`, { key })
  }
  const { issuer } = options
  if (
    issuer !== undefined &&
    (typeof issuer !== "string" || issuer.length < 1 || issuer.length > 64 || issuer.includes(":"))
  ) {
    throw invalid("twoFactor.issuer must be 1-64 characters without ':'", { issuer })
  }
  const methods = options.methods ?? ["totp"]
  if (!Array.isArray(methods) || methods.length === 0 || methods.some((m) => m !== "totp" && m !== "email")) {
    throw invalid('twoFactor.methods must list "totp" and/or "email"', { methods })
  }
  const emailProviders = providers.filter((p) => p.type === "email").map((p) => p.id)
  let emailProvider: string | undefined
  if (options.emailProvider !== undefined) {
    if (!emailProviders.includes(options.emailProvider)) {
      throw invalid(`twoFactor.emailProvider "${String(options.emailProvider)}" is not an email provider`, {
        emailProvider: options.emailProvider,
      })
    }
    emailProvider = options.emailProvider
  } else emailProvider = emailProviders[0]
  if (methods.includes("email") && emailProvider === undefined) {
    throw invalid("twoFactor.methods includes email but no email provider is configured")
  }
  const required = options.required ?? false
  if (typeof required !== "boolean" && typeof required !== "function") {
    throw invalid("twoFactor.required must be a boolean or a function")
  }
  const passkeys = options.passkeys ?? "skip"
  if (passkeys !== "skip" && passkeys !== "enforce") throw invalid('twoFactor.passkeys must be "skip" or "enforce"')
  const trust = options.trustDevice ?? {}
  let trustDevice: ResolvedTwoFactor["trustDevice"] = false
  if (trust !== false) {
    if (typeof trust !== "object" || trust === null) throw invalid("twoFactor.trustDevice must be false or an object")
    const maxAge = trust.maxAge ?? 2_592_000
    if (!Number.isSafeInteger(maxAge) || maxAge < 3600 || maxAge > 31_536_000) {
      throw invalid("twoFactor.trustDevice.maxAge must be 3600-31536000 seconds", { maxAge })
    }
    trustDevice = Object.freeze({ maxAge })
  }
  const revoke = options.revokeOtherSessionsOnEnable ?? true
  if (typeof revoke !== "boolean") throw invalid("twoFactor.revokeOtherSessionsOnEnable must be a boolean")
  if (!adapter) throw new MissingAdapter("Two-factor sign-in requires an adapter")
  const { getTwoFactor, upsertTwoFactor, updateTwoFactor, deleteTwoFactor } = adapter
  if (!getTwoFactor || !upsertTwoFactor || !updateTwoFactor || !deleteTwoFactor) {
    const missing = ADAPTER_METHODS.filter((name) => typeof adapter[name] !== "function")
    throw new MissingAdapterMethods(`Required adapter methods were missing: ${missing.join(", ")}`, {
      cause: { missing },
    })
  }
  const store: TwoFactorAdapter = Object.freeze({ getTwoFactor, upsertTwoFactor, updateTwoFactor, deleteTwoFactor })
  return Object.freeze({
    ...(issuer !== undefined ? { issuer } : {}),
    methods: Object.freeze([...new Set(methods)]),
    required: typeof required === "function" ? required : () => required,
    passkeys,
    trustDevice,
    revokeOtherSessionsOnEnable: revoke,
    ...(emailProvider !== undefined ? { emailProvider } : {}),
    store,
  })
}

/** Resolves the Password provider: defaults, ranges, the email hooks, the breach check and the hasher warnings. */
import { InvalidConfig } from "../../../errors"
import type { LoggerInstance } from "../../../logger"
import type { Awaitable } from "../../../models"
import { breachEndpointAllowed, type BreachCheckOptions } from "../../../password/breach"
import { DEFAULT_SCRYPT, isWeakScrypt, scryptParamsInRange, type ScryptParams } from "../../../password/hash"
import type { PasswordConfig } from "../../../password/types"
import { passwordMailer } from "../../../providers/internal/password-mail"
import type { EmailConfig } from "../../../providers/types"

type Hooks = Required<Pick<PasswordConfig, "sendVerificationRequest" | "sendPasswordReset" | "sendAccountExists">> &
  Pick<PasswordConfig, "sendPasswordChanged">

/** The Password provider as the core uses it: every option filled in and checked. */
export interface ResolvedPasswordProvider extends Omit<PasswordConfig, "options" | keyof Hooks>, Hooks {
  minLength: number
  maxLength: number
  requireEmailVerification: boolean
  autoSignIn: boolean
  emailVerification: { maxAge: number; signIn: boolean; confirm: boolean }
  reset: { maxAge: number; revokeSessions: boolean }
  change: { revokeOtherSessions: boolean }
  scrypt: ScryptParams
  breachCheck: false | BreachCheckOptions | ((password: string) => Awaitable<boolean>)
  awaitEmails: boolean
}

const positive = (name: string, value: unknown, fallback: number): number => {
  if (value === undefined) return fallback
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidConfig(`Password: \`${name}\` must be a positive number of seconds`, { cause: { option: name } })
  }
  return value
}

const flag = (value: unknown, fallback: boolean): boolean => (value === undefined ? fallback : value === true)

function breachOption(value: PasswordConfig["breachCheck"]): ResolvedPasswordProvider["breachCheck"] {
  if (value === undefined || value === false) return false
  if (typeof value === "function") return value
  const options: BreachCheckOptions = value === true ? {} : { ...value }
  if (options.endpoint !== undefined && !breachEndpointAllowed(options.endpoint)) {
    throw new InvalidConfig("Password: `breachCheck.endpoint` must be https (plain http only on loopback)", {
      cause: { option: "breachCheck.endpoint" },
    })
  }
  return Object.freeze(options)
}

/**
 * Checks and completes a merged Password provider. `mailer` is the config's Nodemailer-style email provider, whose
 * `server`/`from` the built-in emails use when the provider has none of its own.
 *
 * @example
 * ```ts
 * resolvePasswordProvider(merged, { production: true, authUrl: "https://app.example", logger })
 * ```
 */
export function resolvePasswordProvider(
  merged: PasswordConfig,
  options: { production: boolean; authUrl?: string; logger?: Pick<LoggerInstance, "warn">; mailer?: EmailConfig },
): ResolvedPasswordProvider {
  const { options: _options, ...config } = merged
  const maxLength = config.maxLength ?? 128
  const minLength = config.minLength ?? 8
  if (!Number.isInteger(maxLength) || maxLength < 64 || maxLength > 1024) {
    throw new InvalidConfig("Password: `maxLength` must be an integer from 64 to 1024", {
      cause: { option: "maxLength" },
    })
  }
  if (!Number.isInteger(minLength) || minLength < 8 || minLength > maxLength) {
    throw new InvalidConfig("Password: `minLength` must be an integer from 8 to `maxLength`", {
      cause: { option: "minLength" },
    })
  }
  if (config.hash && !config.verify) {
    throw new InvalidConfig("Password: a custom `hash` needs `verify` for its format", { cause: { option: "verify" } })
  }
  const scrypt = { ...DEFAULT_SCRYPT, ...config.scrypt }
  if (!scryptParamsInRange(scrypt)) {
    throw new InvalidConfig("Password: `scrypt` must have ln 10–22, r 1–32, p 1–16", { cause: { option: "scrypt" } })
  }
  if (isWeakScrypt(scrypt) && !config.hash) options.logger?.warn("password-hash-weak")
  if (config.url !== undefined && (!URL.canParse(config.url) || !/^https?:$/.test(new URL(config.url).protocol))) {
    throw new InvalidConfig("Password: `url` must be an absolute http(s) URL", { cause: { option: "url" } })
  }
  if (options.production && config.url === undefined && !options.authUrl) {
    throw new InvalidConfig(
      "The Password provider needs AUTH_URL (or its `url`) in production: links are never built from the Host header",
      { cause: { option: "url" } },
    )
  }
  const server = config.server ?? options.mailer?.server
  const from = config.from ?? options.mailer?.from
  const builtIn = server ? passwordMailer(server, from) : undefined
  const hooks = {
    sendVerificationRequest: config.sendVerificationRequest ?? builtIn?.sendVerificationRequest,
    sendPasswordReset: config.sendPasswordReset ?? builtIn?.sendPasswordReset,
    sendAccountExists: config.sendAccountExists ?? builtIn?.sendAccountExists,
    sendPasswordChanged: config.sendPasswordChanged ?? builtIn?.sendPasswordChanged,
  }
  const missing = (["sendVerificationRequest", "sendPasswordReset", "sendAccountExists"] as const).filter(
    (hook) => typeof hooks[hook] !== "function",
  )
  if (missing.length > 0) {
    throw new InvalidConfig(
      `The Password provider sends email: set \`server\` and \`from\` (or a Nodemailer provider), or give ${missing.join(", ")}`,
      { cause: { missing } },
    )
  }
  const requireEmailVerification = flag(config.requireEmailVerification, options.production)
  return Object.freeze({
    ...config,
    ...(hooks as Hooks),
    id: "password",
    type: "password",
    name: config.name ?? "Password",
    minLength,
    maxLength,
    requireEmailVerification,
    autoSignIn: flag(config.autoSignIn, true),
    emailVerification: Object.freeze({
      maxAge: positive("emailVerification.maxAge", config.emailVerification?.maxAge, 86_400),
      signIn: flag(config.emailVerification?.signIn, true),
      confirm: flag(config.emailVerification?.confirm, true),
    }),
    reset: Object.freeze({
      maxAge: positive("reset.maxAge", config.reset?.maxAge, 1800),
      revokeSessions: flag(config.reset?.revokeSessions, true),
    }),
    change: Object.freeze({ revokeOtherSessions: flag(config.change?.revokeOtherSessions, true) }),
    scrypt: Object.freeze(scrypt),
    breachCheck: breachOption(config.breachCheck),
    awaitEmails: config.awaitEmails === true,
  } satisfies ResolvedPasswordProvider)
}

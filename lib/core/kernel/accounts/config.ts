/** Resolves the `account` and `admin` options and their route flags once, with the construction checks of §1. */
import { InvalidConfig, MissingAdapterMethods } from "../../../errors"
import type { Adapter, AdapterUser } from "../../../storage/adapter"
import type { Theme } from "../../../models"
import { accountMailer } from "../../../providers/internal/account-mail"
import { assertKnownKeys } from "../audit/config"
import type { AccountOptions, AdminOptions, DirectoryStore, ResolvedAccounts } from "./types"

const ACCOUNT_KEYS = new Set([
  "deleteConfirmation",
  "sendEmail",
  "emailChangeMaxAge",
  "emailChangeCancelMaxAge",
  "deleteConfirmationMaxAge",
  "hasCredentials",
])
const ADMIN_KEYS = new Set(["isAdmin", "impersonationMaxAge"])
const USER_METHODS = ["getUser", "getUserByEmail", "updateUser", "deleteUser", "unlinkAccount", "listAccountsByUserId"]
const OPTIONAL_METHODS = ["listUsers", "listAuthenticatorsByUserId", "listSessionsByUserId"]

function seconds(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidConfig(`${name} must be a whole number of seconds from ${min} to ${max}`, {
      cause: { option: name },
    })
  }
  return value
}

function fn<F>(name: string, value: unknown): F | undefined {
  if (value === undefined) return undefined
  if (typeof value !== "function") throw new InvalidConfig(`${name} must be a function`, { cause: { option: name } })
  return value as F
}

/**
 * The built-in account mailer over the first email provider's nodemailer transport (`server`, `from`), else the
 * `Password` provider's; `undefined` when neither has a `server`.
 *
 * @example
 * ```ts
 * const builtIn = builtInAccountMailer(resolvedProviders, config.theme)
 * ```
 */
export function builtInAccountMailer(
  providers: ReadonlyArray<{ type: string }>,
  theme: Theme | undefined,
): AccountOptions["sendEmail"] {
  type Transport = { type: string; server?: unknown; from?: string }
  const list = providers as ReadonlyArray<Transport>
  const transport =
    list.find((p) => p.type === "email" && Boolean(p.server)) ??
    list.find((p) => p.type === "password" && Boolean(p.server))
  if (!transport) return undefined
  const send = accountMailer(transport.server, transport.from, theme ?? ({} as Theme))
  return (mail) => send(mail)
}

const defaultIsAdmin = (user: AdapterUser): boolean => user.role === "admin"

/**
 * The resolved options. `builtInMailer` sends the account mails with the built-in templates through the first email
 * provider's nodemailer `server` (else the `Password` provider's), when there is one: it is the resolved `sendEmail`
 * when the app gives none, for the email-change and the delete-confirmation mails alike.
 *
 * @example
 * ```ts
 * const accounts = resolveAccounts(config, wrappedAdapter, accountMailer(server, from, theme))
 * ```
 */
export function resolveAccounts(
  input: {
    account?: AccountOptions
    admin?: AdminOptions
    features?: { accountRoutes?: boolean; adminRoutes?: boolean }
  },
  adapter: Adapter | undefined,
  builtInMailer?: AccountOptions["sendEmail"],
): ResolvedAccounts {
  const routes = Object.freeze({
    account: input.features?.accountRoutes === true,
    admin: input.features?.adminRoutes === true,
  })
  const wanted = input.account !== undefined || input.admin !== undefined || routes.account || routes.admin
  let account: ResolvedAccounts["account"]
  let admin: ResolvedAccounts["admin"]
  if (input.account !== undefined) {
    const a = input.account
    if (typeof a !== "object" || a === null) throw new InvalidConfig("The account option must be an object")
    assertKnownKeys("account", a, ACCOUNT_KEYS)
    if (a.deleteConfirmation !== undefined && a.deleteConfirmation !== "none" && a.deleteConfirmation !== "email") {
      throw new InvalidConfig('account.deleteConfirmation must be "none" or "email"', {
        cause: { option: "account.deleteConfirmation" },
      })
    }
    const emailChangeMaxAge = seconds("account.emailChangeMaxAge", a.emailChangeMaxAge, 86_400, 300, 604_800)
    const emailChangeCancelMaxAge = seconds(
      "account.emailChangeCancelMaxAge",
      a.emailChangeCancelMaxAge,
      Math.max(604_800, emailChangeMaxAge),
      emailChangeMaxAge,
      3_650 * 86_400,
    )
    const sendEmail = fn<AccountOptions["sendEmail"]>("account.sendEmail", a.sendEmail) ?? builtInMailer
    if (a.deleteConfirmation === "email" && !sendEmail) {
      throw new InvalidConfig(
        'account.deleteConfirmation "email" needs account.sendEmail (or an email provider with a server): the ' +
          "confirmation could never be sent",
        { cause: { option: "account.sendEmail" } },
      )
    }
    account = Object.freeze({
      deleteConfirmation: a.deleteConfirmation ?? "none",
      emailChangeMaxAge,
      emailChangeCancelMaxAge,
      deleteConfirmationMaxAge: seconds(
        "account.deleteConfirmationMaxAge",
        a.deleteConfirmationMaxAge,
        3600,
        300,
        86_400,
      ),
      ...(sendEmail ? { sendEmail } : {}),
      ...(a.hasCredentials
        ? { hasCredentials: fn<AccountOptions["hasCredentials"]>("account.hasCredentials", a.hasCredentials) }
        : {}),
    })
  }
  if (input.admin !== undefined) {
    const a = input.admin
    if (typeof a !== "object" || a === null) throw new InvalidConfig("The admin option must be an object")
    assertKnownKeys("admin", a, ADMIN_KEYS)
    admin = Object.freeze({
      isAdmin: fn<AdminOptions["isAdmin"]>("admin.isAdmin", a.isAdmin) ?? defaultIsAdmin,
      impersonationMaxAge: seconds("admin.impersonationMaxAge", a.impersonationMaxAge, 3600, 60, 3600),
    })
  } else if (routes.admin) {
    admin = Object.freeze({ isAdmin: defaultIsAdmin, impersonationMaxAge: 3600 })
  }
  if (!wanted) return Object.freeze({ routes })
  if (!adapter) {
    throw new MissingAdapterMethods("Account self-service and administration need an adapter", {
      cause: { missing: USER_METHODS },
    })
  }
  const methods: Record<string, unknown> = { ...adapter }
  const required = admin ? [...USER_METHODS, "listUsers"] : USER_METHODS
  const missing = required.filter((m) => typeof methods[m] !== "function")
  if (missing.length > 0) {
    throw new MissingAdapterMethods(`Required adapter methods were missing: ${missing.join(", ")}`, {
      cause: { missing },
    })
  }
  const present = [...USER_METHODS, ...OPTIONAL_METHODS].filter((m) => typeof methods[m] === "function")
  const store = Object.freeze(Object.fromEntries(present.map((m) => [m, methods[m]]))) as unknown as DirectoryStore
  return Object.freeze({ ...(account ? { account } : {}), ...(admin ? { admin } : {}), store, routes })
}

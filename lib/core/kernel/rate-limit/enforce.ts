/**
 * The rate-limit subjects of one request and its identifier rules (`credentials-account`, `email-send-address`),
 * which the handlers apply before any credential or email work. The rules of a route row (by IP or session) are
 * enforced by the pipeline before the handler runs.
 */
import { InvalidRequest } from "../../../errors"
import type { CredentialInput, CredentialsConfig } from "../../../providers/types"
import { clientIpSubject } from "./ip"
import type { LimitVerdict, RateLimiter, RuleCounter } from "./limiter"
import type { RateLimitRuleName } from "./types"

/**
 * What the helpers read of a request's context: the kernel's `RequestContext` is one. Named here, not imported, so
 * the limiter's room stays below the config and the context that wire it in.
 */
export interface LimitedRequest {
  readonly config: { readonly rateLimit: RateLimiter }
  readonly request: { readonly action: string }
  readonly provider?: { readonly id: string }
  /** The Web request, for `rateLimit.ip(request)`. */
  readonly webRequest: () => Request
  /** The client IP the framework layer resolved, `null` when it has none; `undefined`: ask `rateLimit.ip`. */
  readonly clientIp?: string | null
}

/** What {@link resetAccountLimits} reads of the resolved config. */
export interface LimitedConfig {
  readonly rateLimit: RateLimiter
  readonly providers: ReadonlyArray<{ readonly type: string }>
  readonly providerById: ReadonlyMap<string, { readonly type: string }>
}

const subjects = new WeakMap<LimitedRequest, string | null>()

/**
 * The client IP of the request as a rate-limit subject (IPv6 grouped, `::ffff:` unwrapped): the one the framework
 * layer resolved (Express `req.ip`, under `trust proxy`), else `rateLimit.ip(request)`, else `null`.
 */
export function clientIpOf(ctx: LimitedRequest): string | null {
  if (subjects.has(ctx)) return subjects.get(ctx) ?? null
  const limiter = ctx.config.rateLimit
  const raw = ctx.clientIp !== undefined ? ctx.clientIp : (limiter.ip?.(ctx.webRequest()) ?? null)
  const subject = clientIpSubject(raw, limiter.ipv6Subnet)
  subjects.set(ctx, subject)
  return subject
}

/**
 * The normalised route a key is scoped to: the parsed action and provider id, never the raw path.
 *
 * @example
 * ```ts
 * limitScope(ctx) // "callback/credentials"
 * ```
 */
export function limitScope(ctx: LimitedRequest): string {
  return `${ctx.request.action}/${ctx.provider?.id ?? ""}`
}

/**
 * Counts one hit of an identifier rule (a normalised address or username) for this route; a verdict when over the
 * limit, else `null`. The caller decides the answer (`credentials-account` refuses; `email-send-address` refuses when
 * the limiter is enabled and stays silent otherwise).
 *
 * @example
 * ```ts
 * const verdict = await limitIdentifier(ctx, "email-send-address", email)
 * if (verdict) throw ctx.config.rateLimit.refuse(verdict)
 * ```
 */
export async function limitIdentifier(
  ctx: LimitedRequest,
  rule: RateLimitRuleName,
  identifier: string,
  counter: RuleCounter = "window",
): Promise<LimitVerdict | null> {
  const limiter = ctx.config.rateLimit
  if (!limiter.active(rule)) return null
  return limiter.hit(rule, limitScope(ctx), identifier, clientIpOf(ctx) ?? undefined, counter)
}

/**
 * Forgets an identifier rule's window for this route (a successful credentials sign-in resets its failures).
 *
 * @example
 * ```ts
 * await resetIdentifier(ctx, "credentials-account", "ada@example.com")
 * ```
 */
export async function resetIdentifier(
  ctx: LimitedRequest,
  rule: RateLimitRuleName,
  identifier: string,
  counter: RuleCounter = "window",
): Promise<void> {
  await ctx.config.rateLimit.reset(rule, limitScope(ctx), identifier, counter)
}

/** Input types that never hold a login name. */
const NOT_IDENTIFIER_TYPES: ReadonlySet<string> = new Set([
  "password",
  "hidden",
  "checkbox",
  "radio",
  "submit",
  "button",
  "reset",
  "file",
  "image",
  "range",
  "color",
])
/** `autocomplete` tokens of secrets (HTML's autofill field names). */
const SECRET_AUTOCOMPLETE = new Set(["current-password", "new-password", "one-time-code"])
/** Names of fields that hold a secret when they are declared without a type. */
const SECRET_NAME = /pass|pin|otp|code|token|secret/i
/** The names a login identifier conventionally has (what an Auth.js credentials form posts). */
const CONVENTIONAL = ["email", "username"]

function autocompleteTokens(input: CredentialInput): string[] {
  return typeof input.autocomplete === "string" ? input.autocomplete.toLowerCase().split(/\s+/) : []
}

/**
 * The fields of a credentials provider that name an account, whose values key `credentials-account`, in order of
 * preference: the declared fields whose `autocomplete` says `username` or `email`; else the declared `email` and
 * `username` fields; else every declared field typed like a login name (not a password, hidden field, checkbox or
 * one-time code, nor named like a secret); else, for a provider that declares none of these, `email` and `username`.
 * A field the provider does not name this way never counts, so a junk `email=` on a username form cannot open a
 * fresh counter, and a shared value (a remember-me box, a guessed password) cannot lock other people's accounts.
 *
 * @example
 * ```ts
 * identifierFields({ credentials: { username: {}, password: { type: "password" } } }) // ["username"]
 * identifierFields({ credentials: { phone: { type: "tel" }, pin: {} } }) // ["phone"]
 * ```
 */
export function identifierFields(provider: Pick<CredentialsConfig, "credentials">): string[] {
  const declared = Object.entries(provider.credentials ?? {})
  const named = declared.filter(([, input]) => autocompleteTokens(input).some((t) => t === "username" || t === "email"))
  if (named.length > 0) return named.map(([field]) => field)
  const conventional = declared.filter(([field]) => CONVENTIONAL.includes(field))
  if (conventional.length > 0) return conventional.map(([field]) => field)
  const typed = declared.filter(([field, input]) => {
    const type = typeof input.type === "string" ? input.type.toLowerCase() : ""
    const secret = SECRET_NAME.test(field) || autocompleteTokens(input).some((t) => SECRET_AUTOCOMPLETE.has(t))
    return !NOT_IDENTIFIER_TYPES.has(type) && !secret
  })
  return typed.length > 0 ? typed.map(([field]) => field) : CONVENTIONAL
}

// Characters that do not show: controls, format characters (zero-width space and joiners, bidi controls, the BOM),
// the other default-ignorable code points (soft hyphen, variation selectors, Hangul fillers) and line separators.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/gu

/**
 * A login identifier as the limiter counts it, normalised like an email address: Unicode NFKC (fullwidth and
 * compatibility forms fold), invisible characters removed, trimmed, lower-cased. `ada`, `ＡＤＡ` and `a\u200Bda` are
 * one account.
 *
 * @example
 * ```ts
 * normalizeIdentifier(" Ada\u200B@Example.com ") // "ada@example.com"
 * ```
 */
export function normalizeIdentifier(value: string): string {
  return value.normalize("NFKC").replace(INVISIBLE, "").trim().toLowerCase()
}

/**
 * The accounts a credentials attempt names: one counter subject per identifier field of the provider present in the
 * body (`username:ada`), every one of them counted, so no extra field can move an attempt to a fresh counter.
 *
 * @throws `InvalidRequest` (status 400) when an identifier field is present but not a string (a JSON array or
 *   object): the attempt is refused before any counter or `authorize()`.
 * @example
 * ```ts
 * accountSubjects(provider, { username: " Ada ", password: "…" }) // ["username:ada"]
 * ```
 */
export function accountSubjects(
  provider: Pick<CredentialsConfig, "id" | "credentials">,
  fields: Record<string, unknown> | undefined,
): string[] {
  const subjects: string[] = []
  for (const field of identifierFields(provider)) {
    const value = fields?.[field]
    if (value === undefined) continue
    if (typeof value !== "string") {
      throw new InvalidRequest("A login identifier must be a string", {
        cause: { provider: provider.id, field },
        status: 400,
      })
    }
    const normalized = normalizeIdentifier(value)
    if (normalized !== "") subjects.push(`${field}:${normalized}`)
  }
  return subjects
}

/**
 * `resetRateLimit({ identifier })`: forgets both `credentials-account` counters (the 15-minute window and the 24-hour
 * cap) of an email address or user name, under every identifier field of every credentials provider. For the app's
 * password-reset flow, so the owner of an account an attacker drove to the cap can sign in again.
 *
 * @example
 * ```ts
 * await resetAccountLimits(resolved, "ada@example.com")
 * ```
 */
export async function resetAccountLimits(config: LimitedConfig, identifier: string): Promise<void> {
  if (typeof identifier !== "string" || identifier.trim() === "") {
    throw Object.assign(new TypeError("resetRateLimit needs a non-empty identifier"), { code: "ERR_INVALID_ARG_VALUE" })
  }
  const value = normalizeIdentifier(identifier)
  const resets = config.providers
    .filter((provider): provider is CredentialsConfig => provider.type === "credentials")
    .flatMap((provider) =>
      identifierFields(provider).flatMap((field) =>
        (["window", "long"] as const).map((counter) =>
          config.rateLimit.reset("credentials-account", `callback/${provider.id}`, `${field}:${value}`, counter),
        ),
      ),
    )
  // The Password provider counts its sign-ins by the address, as a credentials form with an `email` field.
  if (config.providerById.get("password")?.type === "password") {
    for (const counter of ["window", "long"] as const) {
      resets.push(config.rateLimit.reset("credentials-account", "callback/password", `email:${value}`, counter))
    }
  }
  await Promise.all(resets)
}

/**
 * Applies the rate-limit rules to one request: the rules of its route row (by IP or session) before the handler runs,
 * and the identifier rules (`credentials-account`, `email-send-address`) from the handlers, before any credential or
 * email work.
 */
import type { RequestContext } from "../context"
import { readSessionCookie } from "../../cookie-header"
import { policyOf } from "../routes"
import type { RateLimitRuleName } from "../types"
import { clientIpSubject } from "./ip"
import type { ResolvedConfig } from "../config/types"
import { defaultRateLimitRules, type LimitVerdict, type RuleCounter } from "./limiter"

const subjects = new WeakMap<RequestContext, string | null>()

/**
 * The client IP of the request as a rate-limit subject (IPv6 grouped, `::ffff:` unwrapped): the one the framework
 * layer resolved (Express `req.ip`, under `trust proxy`), else `rateLimit.ip(request)`, else `null`.
 */
export function clientIpOf(ctx: RequestContext): string | null {
  if (subjects.has(ctx)) return subjects.get(ctx) ?? null
  const limiter = ctx.config.rateLimit
  const raw = ctx.clientIp !== undefined ? ctx.clientIp : (limiter.ip?.(ctx.webRequest()) ?? null)
  const subject = clientIpSubject(raw, limiter.ipv6Subnet)
  subjects.set(ctx, subject)
  return subject
}

/** The normalised route a key is scoped to: the parsed action and provider id, never the raw path. */
function scopeOf(ctx: RequestContext): string {
  return `${ctx.request.action}/${ctx.provider?.id ?? ""}`
}

async function limitBy(ctx: RequestContext, rule: RateLimitRuleName): Promise<void> {
  const limiter = ctx.config.rateLimit
  if (!limiter.active(rule)) return
  const by = defaultRateLimitRules[rule].by
  const ip = clientIpOf(ctx)
  let subject: string | null = null
  if (by === "ip") {
    subject = ip
    if (subject === null) {
      // Deliberately not one shared bucket for every client (an easy global lockout): the IP rule is skipped.
      limiter.noClientIp()
      return
    }
  } else if (by === "session") {
    subject = readSessionCookie(ctx.request.cookies, ctx.cookies.sessionToken.name).value ?? null
    if (!subject) return
  }
  if (subject === null) return
  const verdict = await limiter.hit(rule, scopeOf(ctx), subject, ip ?? undefined)
  if (verdict) throw limiter.refuse(verdict)
}

/**
 * Counts the request against the IP and session rules of its route row (`routes.ts`); throws `RateLimited` when one
 * is over its limit. Called by the router after the method, provider and CSRF checks, before the handler.
 *
 * @example
 * ```ts
 * await limitRoute(ctx) // the 11th credentials POST from one IP within 60 s → RateLimited
 * ```
 */
export async function limitRoute(ctx: RequestContext): Promise<void> {
  const { action, method } = ctx.request
  for (const entry of policyOf(action).rateLimits ?? []) {
    if (!entry.methods.includes(method)) continue
    if (entry.providerType !== undefined && ctx.provider?.type !== entry.providerType) continue
    if (entry.pushing && (ctx.provider as { security?: { par?: boolean } } | undefined)?.security?.par !== true)
      continue
    for (const rule of entry.rules) await limitBy(ctx, rule)
  }
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
  ctx: RequestContext,
  rule: RateLimitRuleName,
  identifier: string,
  counter: RuleCounter = "window",
): Promise<LimitVerdict | null> {
  const limiter = ctx.config.rateLimit
  if (!limiter.active(rule)) return null
  return limiter.hit(rule, scopeOf(ctx), identifier, clientIpOf(ctx) ?? undefined, counter)
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
  ctx: RequestContext,
  rule: RateLimitRuleName,
  identifier: string,
  counter: RuleCounter = "window",
): Promise<void> {
  await ctx.config.rateLimit.reset(rule, scopeOf(ctx), identifier, counter)
}

/**
 * The account a credentials attempt names: its `email` field, else its `username` field, trimmed and lowercased and
 * tagged with the field (`email:ada@example.com`). `undefined` when the body has neither.
 *
 * @example
 * ```ts
 * accountIdentifier({ email: " Ada@Example.com ", password: "…" }) // "email:ada@example.com"
 * ```
 */
export function accountIdentifier(fields: Record<string, unknown> | undefined): string | undefined {
  for (const field of ["email", "username"]) {
    const value = fields?.[field]
    if (typeof value === "string" && value.trim() !== "") return `${field}:${value.trim().toLowerCase()}`
  }
  return undefined
}

/**
 * `resetRateLimit({ identifier })`: forgets both `credentials-account` counters (the 15-minute window and the 24-hour
 * cap) of an email address or user name, on every credentials provider. For the app's password-reset flow, so the
 * owner of an account an attacker drove to the cap can sign in again.
 *
 * @example
 * ```ts
 * await resetAccountLimits(resolved, "ada@example.com")
 * ```
 */
export async function resetAccountLimits(config: ResolvedConfig, identifier: string): Promise<void> {
  if (typeof identifier !== "string" || identifier.trim() === "") {
    throw Object.assign(new TypeError("resetRateLimit needs a non-empty identifier"), { code: "ERR_INVALID_ARG_VALUE" })
  }
  const subjects = ["email", "username"].map((field) => accountIdentifier({ [field]: identifier })!)
  const resets = config.providers
    .filter((provider) => provider.type === "credentials")
    .flatMap((provider) =>
      subjects.flatMap((subject) =>
        (["window", "long"] as const).map((counter) =>
          config.rateLimit.reset("credentials-account", `callback/${provider.id}`, subject, counter),
        ),
      ),
    )
  await Promise.all(resets)
}

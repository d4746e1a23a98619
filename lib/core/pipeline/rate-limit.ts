/** Enforces the rate-limit rules of a request's route row (by client IP or by session) before its handler runs. */
import type { RequestContext } from "../kernel/context"
import { clientIpOf, limitScope } from "../kernel/rate-limit/enforce"
import { defaultRateLimitRules } from "../kernel/rate-limit/limiter"
import { policyOf } from "../kernel/routes"
import type { RateLimitRuleName } from "../kernel/types"
import { sessionContext } from "../session/context"
import { currentPrincipal } from "../session/principal"
import { claimsOf } from "../session/claims"

/**
 * The session a "by session" rule counts: who is signed in and which of their sessions, never the cookie's bytes (a
 * browser that keeps each re-issued cookie would otherwise start a fresh bucket with every answer). JWT: the user and
 * the session epoch; database: the row's stored key. `null` without a valid session (the rule then does not apply).
 */
async function sessionSubject(ctx: RequestContext): Promise<string | null> {
  const door = await currentPrincipal(sessionContext(ctx))
  if (!door.ok) return null
  const { principal } = door
  if (principal.strategy === "database") return `db:${principal.session.sessionToken}`
  const epoch = claimsOf(principal.token)?.se
  return `jwt:${principal.userId ?? ""}:${typeof epoch === "number" ? epoch : (principal.token.jti ?? "")}`
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
    subject = await sessionSubject(ctx)
    if (!subject) return
  }
  if (subject === null) return
  const verdict = await limiter.hit(rule, limitScope(ctx), subject, ip ?? undefined)
  if (verdict) throw limiter.refuse(verdict)
}

/**
 * The rules of a request's route row (`routes.ts`) that apply to it, in order: none for most requests (every session
 * read), so the router waits for the limiter only when there is something to count.
 *
 * @example
 * ```ts
 * routeLimits(ctx) // ["credentials-ip"] for POST /callback/credentials; [] for GET /session
 * ```
 */
export function routeLimits(ctx: RequestContext): readonly RateLimitRuleName[] {
  const { action, method } = ctx.request
  // Made on the first rule that applies: most requests get the shared empty list.
  let rules: RateLimitRuleName[] | undefined
  for (const entry of policyOf(action).rateLimits ?? []) {
    if (!entry.methods.includes(method)) continue
    if (entry.providerType !== undefined && ctx.provider?.type !== entry.providerType) continue
    if (entry.segments !== undefined && !entry.segments.includes(ctx.request.providerId ?? "")) continue
    if (entry.pushing && (ctx.provider as { security?: { par?: boolean } } | undefined)?.security?.par !== true)
      continue
    ;(rules ??= []).push(...entry.rules)
  }
  return rules ?? NO_RULES
}

const NO_RULES: readonly RateLimitRuleName[] = Object.freeze([])

/**
 * Counts the request against `rules` (its route row's, from {@link routeLimits}) by IP or by session; throws
 * `RateLimited` when one is over its limit. Called by the router after the method, provider and CSRF checks, before
 * the handler.
 *
 * @example
 * ```ts
 * await limitRoute(ctx, routeLimits(ctx)) // the 11th credentials POST from one IP within 60 s → RateLimited
 * ```
 */
export async function limitRoute(ctx: RequestContext, rules: readonly RateLimitRuleName[]): Promise<void> {
  for (const rule of rules) await limitBy(ctx, rule)
}

/** The account and admin rate-limit rules (accounts.md §7), counted by user id outside the route table. */
import type { RateLimiter } from "./limiter"
import type { RateLimitRuleName } from "./types"

/**
 * Counts one hit of `rule` for `userId`; throws `RateLimited` when over the limit.
 *
 * @example
 * ```ts
 * await limitIdentifierOf(config, "account-email-change", userId)
 * ```
 */
export async function limitIdentifierOf(
  config: { readonly rateLimit: RateLimiter },
  rule: RateLimitRuleName,
  userId: string,
): Promise<void> {
  const limiter = config.rateLimit
  if (!limiter.active(rule)) return
  const verdict = await limiter.hit(rule, "account", userId, undefined)
  if (verdict) throw limiter.refuse(verdict)
}

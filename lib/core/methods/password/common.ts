/** What the Password flows share: the provider, the typed fields, the address rules and the uniform answers. */
import { EmailSignInError, InvalidEmail, InvalidRequest, RateLimited } from "../../../errors"
import type { ResolvedPasswordProvider } from "../../kernel/config/password"
import type { ResolvedConfig } from "../../kernel/config/types"
import { checkSealer } from "../../kernel/checks"
import { actionUrl, type RequestContext } from "../../kernel/context"
import { normalizeEmail } from "../../kernel/email-address"
import type { AuthResult } from "../../kernel/response"
import { clientIpOf } from "../../kernel/rate-limit/enforce"
import { okAnswer } from "./answers"

/**
 * The configured Password provider, or `undefined`.
 *
 * @example
 * ```ts
 * const provider = passwordProviderOf(ctx.config)
 * ```
 */
export function passwordProviderOf(config: ResolvedConfig): ResolvedPasswordProvider | undefined {
  const provider = config.providerById.get("password")
  return provider?.type === "password" ? provider : undefined
}

/** The provider of a request on a Password route (the router only lets such requests through with one). */
export function providerOf(ctx: RequestContext): ResolvedPasswordProvider {
  const provider = passwordProviderOf(ctx.config)
  if (!provider) throw new InvalidRequest("no Password provider is configured")
  return provider
}

/** A string field of the body (POST) or the query (GET); `undefined` when absent or not a string. */
export function field(ctx: RequestContext, name: string): string | undefined {
  const value = ctx.request.method === "POST" ? ctx.request.body?.[name] : ctx.request.query[name]
  return typeof value === "string" ? value : undefined
}

/**
 * The normalised address of a field (NFKC, trim, lower-case), or `InvalidEmail`: `missing` when there is none,
 * `invalid_email` for quotes, brackets, whitespace, control characters, a second `@` or a comma.
 *
 * @example
 * ```ts
 * addressOf(" Ada@Example.com ") // "ada@example.com"
 * ```
 */
export function addressOf(input: unknown): string {
  if (typeof input !== "string" || input.trim() === "")
    throw new InvalidEmail("Missing email address", { code: "missing" })
  if (input.includes(",")) throw new InvalidEmail("Invalid email address", { code: "invalid_email" })
  try {
    return normalizeEmail(input)
  } catch (error) {
    if (error instanceof EmailSignInError) throw new InvalidEmail("Invalid email address", { code: "invalid_email" })
    throw error
  }
}

/** The address, or `null` when it is not one (sign-in answers those with its one failure). */
export function addressOrNull(input: unknown): string | null {
  try {
    return addressOf(input)
  } catch {
    return null
  }
}

/** The optional display name of a sign-up: at most 256 characters after trimming. */
export function nameOf(input: unknown): string | null {
  if (input === undefined || input === null || input === "") return null
  if (typeof input !== "string") throw new InvalidRequest("name must be a string")
  const name = input.trim()
  if ([...name].length > 256) throw new InvalidRequest("name is longer than 256 characters")
  return name === "" ? null : name
}

/**
 * `password-email-address`: at most 3 emails per address per 10 minutes, shared by sign-up, forgot and resend,
 * counted before the address is looked up. With the limiter on, a refusal throws `RateLimited`; with it off the rule
 * still runs, silently: `false` means "answer as usual, send nothing".
 *
 * @example
 * ```ts
 * const mayMail = await addressQuota(ctx, email)
 * ```
 */
export async function addressQuota(ctx: RequestContext, email: string): Promise<boolean> {
  const limiter = ctx.config.rateLimit
  if (!limiter.active("password-email-address")) return true
  const verdict = await limiter.hit("password-email-address", "password", email, clientIpOf(ctx) ?? undefined)
  if (!verdict) return true
  if (limiter.enabled) throw limiter.refuse(verdict)
  ctx.logger.debug("password email suppressed: too many for one address", { rule: "password-email-address" })
  return false
}

/** The IP rule a Password route counts before its handler; re-thrown as the route's own refusal. */
export function isRateLimited(error: unknown): error is RateLimited {
  return error instanceof RateLimited
}

/**
 * The "check your email" answer (`verify-request?provider=password&type=<type>`), with the masked address sealed
 * for the page: the same for a known and an unknown address. JSON mode: `200 {"ok":true}`.
 *
 * @example
 * ```ts
 * return checkYourEmail(ctx, email, "reset")
 * ```
 */
export async function checkYourEmail(
  ctx: RequestContext,
  email: string,
  type: "signup" | "reset" | "verify",
): Promise<AuthResult> {
  const { name, options } = ctx.cookies.verifyAddress
  const maxAge = options.maxAge ?? 600
  const at = email.lastIndexOf("@")
  const masked = at <= 0 ? "…" : `${Array.from(email.slice(0, at))[0]}…${email.slice(at)}`
  const sealed = await checkSealer(ctx.config.secret).seal(
    { purpose: "verifyAddress", provider: "password", salt: name, maxAge },
    masked,
  )
  ctx.jar.set(name, sealed, { ...options, maxAge })
  const query = new URLSearchParams({ provider: "password", type })
  return okAnswer(ctx, `${actionUrl(ctx, "verify-request")}?${query}`)
}

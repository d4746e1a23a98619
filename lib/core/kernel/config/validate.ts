/** Config checks of the resolved settings: limits, the session strategy, the custom pages, email link origins. */
import { InvalidConfig } from "../../../errors"
import type { LoggerInstance } from "../../../logger"
import type { EmailConfig } from "../../../providers/types"
import { isProduction, type Env } from "./env"
import type { ResolvedConfig } from "./types"

function assertPositive(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new InvalidConfig(`Invalid ${name}`, { cause: { [name]: value } })
}

/**
 * Throws the first problem of the resolved limits, strategy and pages.
 *
 * @example
 * ```ts
 * assertSettings(session, jwt, pages)
 * ```
 */
export function assertSettings(
  session: { strategy: string; maxAge: number; updateAge: number },
  jwt: { maxAge: number },
  pages: Record<string, unknown>,
): void {
  assertPositive("session.maxAge", session.maxAge)
  assertPositive("session.updateAge", session.updateAge)
  assertPositive("jwt.maxAge", jwt.maxAge)
  if (session.strategy !== "jwt" && session.strategy !== "database") {
    throw new InvalidConfig(
      `Invalid session.strategy ${JSON.stringify(String(session.strategy))}: use "jwt" (the default without an ` +
        'adapter) or "database" (the default with one)',
      { cause: { strategy: session.strategy } },
    )
  }
  for (const [key, value] of Object.entries(pages)) {
    if (value !== undefined && (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//"))) {
      throw new InvalidConfig("Pages must be paths starting with a single /", { cause: { page: key } })
    }
  }
}

/**
 * Email providers: links are built only from a configured origin in production (EM-07), with a warning in development;
 * `url` must be an absolute http(s) URL.
 *
 * @example
 * ```ts
 * assertEmailProviders(resolved, process.env)
 * ```
 */
/**
 * The email provider's `code` option resolved (`null` when off); throws `InvalidConfig` for a length other than 6 or 8
 * or attempts outside 1-10.
 *
 * @example
 * ```ts
 * emailCodeOptions(provider) // { length: 6, maxAttempts: 5 }
 * ```
 */
export function emailCodeOptions(provider: EmailConfig): { length: 6 | 8; maxAttempts: number } | null {
  const code = provider.code
  if (code === undefined || code === false) return null
  if (code !== true && (typeof code !== "object" || code === null)) {
    throw new InvalidConfig("email code must be true, false or an object", { cause: { provider: provider.id } })
  }
  const length = code === true ? 6 : (code.length ?? 6)
  if (length !== 6 && length !== 8) {
    throw new InvalidConfig("email code length must be 6 or 8", { cause: { provider: provider.id, length } })
  }
  const maxAttempts = code === true ? 5 : (code.maxAttempts ?? 5)
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 10) {
    throw new InvalidConfig("email code maxAttempts must be an integer from 1 to 10", {
      cause: { provider: provider.id, maxAttempts },
    })
  }
  return { length, maxAttempts }
}

export function assertEmailProviders(resolved: ResolvedConfig, env: Env, logger: LoggerInstance): void {
  let warned = false
  for (const provider of resolved.providers) {
    if (provider.type !== "email") continue
    const { url, id, maxAge } = provider as EmailConfig
    emailCodeOptions(provider as EmailConfig)
    if (maxAge !== undefined && (!Number.isFinite(maxAge) || maxAge <= 0)) {
      throw new InvalidConfig("Invalid email provider maxAge", { cause: { provider: id, maxAge } })
    }
    // EM-10: links are bearer credentials; above an hour (ASVS 6.5.5 says 10 minutes) the lifetime is worth a warning.
    if (maxAge !== undefined && maxAge > 60 * 60) logger.warn("email-maxage-long")
    if (url !== undefined && (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))) {
      throw new InvalidConfig("Invalid email provider url", { cause: { provider: id } })
    }
    if (url !== undefined || resolved.authUrl) continue
    if (isProduction(env)) {
      throw new InvalidConfig(
        "Email sign-in needs AUTH_URL (or the provider's `url`) in production: links are never built from the Host header",
        { cause: { provider: id } },
      )
    }
    if (!warned) logger.warn("email-url-from-request")
    warned = true
  }
}

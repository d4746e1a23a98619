/** The password policy of the flows that set a password (sign-up, reset, change, set): NIST SP 800-63B. */
import { PasswordPolicy } from "../../../errors"
import type { LoggerInstance } from "../../../logger"
import { pwnedLookup } from "../../../password/breach"
import { defaultBlocklist, lengthCode, normalizePassword, type PasswordPolicyCode } from "../../../password/policy"
import type { ResolvedPasswordProvider } from "../../kernel/config/password"

function refuse(provider: ResolvedPasswordProvider, code: PasswordPolicyCode): PasswordPolicy {
  return new PasswordPolicy(`The password was refused (${code})`, {
    code,
    status: code === "breach_check_failed" ? 503 : 400,
    cause: { minLength: provider.minLength, maxLength: provider.maxLength },
  })
}

/**
 * Applies the policy to a password being set and answers it normalised (NFKC): type, length in code points, the
 * blocklist, then the breach check. A refusal throws `PasswordPolicy` with its code; nothing of the password is kept.
 *
 * @example
 * ```ts
 * const normalized = await acceptPassword(provider, logger, body.password, { email, name })
 * ```
 */
export async function acceptPassword(
  provider: ResolvedPasswordProvider,
  logger: Pick<LoggerInstance, "warn">,
  input: unknown,
  user: { email: string | null; name?: string | null },
): Promise<string> {
  const normalized = normalizePassword(input)
  if (normalized === null) throw refuse(provider, "missing")
  const length = lengthCode(normalized, provider.minLength, provider.maxLength)
  if (length) throw refuse(provider, length)
  const blocked = provider.blocklist
    ? (await provider.blocklist(normalized, user)) === true
    : defaultBlocklist(normalized, user)
  if (blocked) throw refuse(provider, "blocklisted")
  const check = provider.breachCheck
  if (typeof check === "function") {
    if ((await check(normalized)) === true) throw refuse(provider, "breached")
  } else if (check) {
    const verdict = await pwnedLookup(normalized, check)
    if (verdict === "breached") throw refuse(provider, "breached")
    if (verdict === "failed") {
      if (check.failClosed === true) throw refuse(provider, "breach_check_failed")
      logger.warn("password-breach-check-failed")
    }
  }
  return normalized
}

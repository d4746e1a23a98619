/** The account mails (accounts.md §2.7): handed to `account.sendEmail`; a failing send is `EmailSignInError` (502). */
import { createHash, randomBytes } from "node:crypto"
import { EmailSignInError, InvalidConfig } from "../../../errors"
import type { AdapterUser } from "../../../storage/adapter"
import type { AccountEmail } from "../../kernel/accounts/types"
import type { ResolvedConfig } from "../../kernel/config/types"

/** A link token: the user id (base64url) and 32 random bytes, so the record is found without an index. */
export function newLinkToken(userId: string): string {
  return `${Buffer.from(userId).toString("base64url")}.${randomBytes(32).toString("base64url")}`
}

/** SHA-256 of a link token (base64url): what the store keeps. */
export const hashLinkToken = (token: string): string => createHash("sha256").update(token).digest("base64url")

/** The user id a link token names, or `null` for anything that is not one. */
export function userIdOfLinkToken(token: unknown): string | null {
  if (typeof token !== "string" || token.length > 1024) return null
  const match = /^([A-Za-z0-9_-]{1,400})\.[A-Za-z0-9_-]{43}$/.exec(token)
  if (!match) return null
  const id = Buffer.from(match[1]!, "base64url").toString("utf8")
  return id.length > 0 && id.length <= 255 ? id : null
}

/** Masks an address for the notice to the old one: `a***@example.com`. */
export const maskEmail = (email: string): string => {
  const at = email.lastIndexOf("@")
  return `${email.slice(0, 1)}***${email.slice(at)}`
}

/**
 * Sends one account mail through `account.sendEmail` (the app's, else the built-in templates over the first email
 * provider's or the Password provider's nodemailer transport, resolved once with the config). Without either,
 * `InvalidConfig` naming the option; a send that throws becomes `EmailSignInError` (status 502).
 *
 * @example
 * ```ts
 * await sendAccountEmail(config, { type: "delete-confirm", to, url, expires, user })
 * ```
 */
export async function sendAccountEmail(
  config: ResolvedConfig,
  message: Omit<AccountEmail, "user"> & { user: AdapterUser },
): Promise<void> {
  const send = config.accounts.account?.sendEmail
  if (!send) {
    throw new InvalidConfig("account.sendEmail is not configured", { cause: { option: "account.sendEmail" } })
  }
  const { user, ...rest } = message
  try {
    await send({ ...rest, user: { id: user.id, name: user.name ?? null, email: user.email ?? null } })
  } catch (error) {
    throw new EmailSignInError("The account mail could not be sent", { status: 502, cause: error as Error })
  }
}

/** The Nodemailer email provider: magic links sent over SMTP. */
import { createTransport } from "nodemailer"
import type SMTPTransport from "nodemailer/lib/smtp-transport"
import { InvalidConfig } from "../errors"
import { DEFAULT_EMAIL_MAX_AGE } from "./email"
import { signInMessage, twoFactorMessage } from "./internal/email-message"
import type { EmailConfig, SendVerificationRequestParams } from "./types"

/** What you pass to {@link Nodemailer}: `server` (an SMTP URL or transport options) and `from` at least. */
export type NodemailerUserConfig = Partial<Omit<EmailConfig, "type" | "options" | "server">> & {
  server: string | SMTPTransport.Options
}

/**
 * Time limits of one SMTP exchange, in ms, unless the `server` options set their own: nodemailer's defaults (2 min to
 * connect, 30 s for the greeting, 10 min of socket silence) would hold a magic-link request that long.
 */
export const SMTP_TIMEOUTS = {
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 10_000,
  dnsTimeout: 10_000,
}

/**
 * Sends the default sign-in message through the provider's SMTP server. Rejected or pending recipients are errors.
 *
 * @example
 * ```ts
 * await sendWithNodemailer({ identifier, url, provider, theme, expires, token, request })
 * ```
 */
export async function sendWithNodemailer(params: SendVerificationRequestParams): Promise<void> {
  const { identifier, url, provider, theme, expires, code, purpose } = params
  const server = typeof provider.server === "string" ? { url: provider.server } : (provider.server as object)
  const transport = createTransport({ ...SMTP_TIMEOUTS, ...server } as SMTPTransport.Options)
  try {
    const message =
      purpose === "two-factor" && code
        ? twoFactorMessage({ code, url, expires })
        : signInMessage({ url, theme, expires, ...(code ? { code } : {}) })
    const result = await transport.sendMail({ to: identifier, from: provider.from, ...message })
    const failed = [...(result.rejected ?? []), ...(result.pending ?? [])].filter(Boolean)
    if (failed.length > 0) throw new Error("Email could not be sent", { cause: { failed: failed.length } })
  } finally {
    transport.close()
  }
}

/**
 * Creates an email provider that sends magic links over SMTP with nodemailer (an optional peer dependency).
 *
 * @example
 * ```ts
 * import Nodemailer from "gatehouse-auth/providers/nodemailer"
 * Nodemailer({ server: process.env.EMAIL_SERVER!, from: "Sign in <no-reply@example.com>" })
 * ```
 */
export function Nodemailer(config: NodemailerUserConfig): EmailConfig {
  if (!config?.server) throw new InvalidConfig("Nodemailer requires a `server` configuration")
  return {
    id: "nodemailer",
    name: "Email",
    type: "email",
    from: "Gatehouse <no-reply@gatehouse.invalid>",
    maxAge: DEFAULT_EMAIL_MAX_AGE,
    sendVerificationRequest: sendWithNodemailer,
    options: config as Partial<EmailConfig>,
  }
}

export default Nodemailer

/** The Nodemailer email provider: magic links sent over SMTP. */
import { createTransport } from "nodemailer"
import type SMTPTransport from "nodemailer/lib/smtp-transport"
import { InvalidConfig } from "../errors"
import { DEFAULT_EMAIL_MAX_AGE } from "./email"
import { signInMessage } from "./internal/email-message"
import type { EmailConfig, SendVerificationRequestParams } from "./types"

/** What you pass to {@link Nodemailer}: `server` (an SMTP URL or transport options) and `from` at least. */
export type NodemailerUserConfig = Partial<Omit<EmailConfig, "type" | "options" | "server">> & {
  server: string | SMTPTransport.Options
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
  const { identifier, url, provider, theme } = params
  const transport = createTransport(provider.server as SMTPTransport.Options)
  try {
    const message = signInMessage({ url, theme })
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
 * import Nodemailer from "gatehouse/providers/nodemailer"
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

/** The generic email (magic link) provider: bring your own `sendVerificationRequest`. */
import type { EmailConfig, SendVerificationRequestParams } from "./types"

export type { EmailConfig, SendVerificationRequestParams }

/** What you pass to {@link Email}: everything optional but `sendVerificationRequest`. */
export type EmailUserConfig = Partial<Omit<EmailConfig, "type" | "options">> &
  Pick<EmailConfig, "sendVerificationRequest">

/** Default lifetime of a sign-in link: 10 minutes (ASVS 6.5.5; Auth.js uses 24 hours). */
export const DEFAULT_EMAIL_MAX_AGE = 10 * 60

/**
 * Creates an email provider that signs users in with a one-time link. You deliver the message in
 * `sendVerificationRequest({identifier, url, expires, ...})`; Gatehouse stores only a hash of the token.
 *
 * @example
 * ```ts
 * import Email from "gatehouse-auth/providers/email"
 * Email({ sendVerificationRequest: async ({ identifier, url }) => myMailer.send(identifier, url) })
 * ```
 */
export function Email(config: EmailUserConfig): EmailConfig {
  return {
    id: "email",
    name: "Email",
    type: "email",
    maxAge: DEFAULT_EMAIL_MAX_AGE,
    sendVerificationRequest: config.sendVerificationRequest,
    options: config,
  }
}

export default Email

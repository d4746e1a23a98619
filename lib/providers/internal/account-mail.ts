/**
 * The account mails' built-in templates over SMTP (nodemailer): the email-change link to the new address, the "this
 * wasn't me" notice to the old one and the delete confirmation. Used when `account.sendEmail` is not given.
 */
import type { Theme } from "../../models"
import { lifetimeText } from "./email-message"
import { message, smtpSender } from "./password-mail"

/** What the built-in account mailer receives (the shape of the core's `AccountEmail`). */
export interface AccountMailParams {
  type: "email-change-verify" | "email-change-notice" | "delete-confirm"
  to: string
  url: string
  expires: Date
  newEmailMasked?: string
}

const hostOf = (url: string) => new URL(url).host
const IGNORE = "If you did not ask for this, ignore this email."

/**
 * The built-in `account.sendEmail`: one mail per call through `server` from `from`, one link each, every line escaped.
 *
 * @example
 * ```ts
 * const send = accountMailer("smtp://127.0.0.1:2525", "no-reply@app.example", theme)
 * await send({ type: "delete-confirm", to, url, expires })
 * ```
 */
export function accountMailer(server: unknown, from: string | undefined, theme: Theme) {
  const send = smtpSender(server, from)
  return async (mail: AccountMailParams): Promise<void> => {
    const expiry = `This link expires in ${lifetimeText(mail.expires)}.`
    const host = hostOf(mail.url)
    if (mail.type === "email-change-verify") {
      return send(
        mail.to,
        message(theme, `Confirm your new email address for ${host}`, [expiry, IGNORE], {
          url: mail.url,
          label: "Confirm new email address",
        }),
      )
    }
    if (mail.type === "email-change-notice") {
      return send(
        mail.to,
        message(
          theme,
          `Your email address at ${host} is being changed`,
          [
            `Someone asked to change the email address of your account to ${mail.newEmailMasked ?? "a new address"}.`,
            `If this was not you, cancel the change. ${expiry}`,
          ],
          { url: mail.url, label: "This wasn't me" },
        ),
      )
    }
    return send(
      mail.to,
      message(theme, `Confirm deleting your account at ${host}`, [`This cannot be undone. ${expiry}`, IGNORE], {
        url: mail.url,
        label: "Delete my account",
      }),
    )
  }
}

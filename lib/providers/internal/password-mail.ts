/**
 * The Password provider's built-in emails over SMTP (nodemailer): verification, reset, "you already have an account"
 * and "your password was changed". Text and HTML parts; the typed address is never repeated in the body.
 */
import type SMTPTransport from "nodemailer/lib/smtp-transport"
import type { Theme } from "../../models"
import type {
  AccountExistsParams,
  PasswordChangedParams,
  PasswordResetParams,
  PasswordVerificationParams,
} from "../../password/types"
import { DEFAULT_EMAIL_BRAND, lifetimeText } from "./email-message"

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const IGNORE = "If you did not ask for this, ignore this email."

/** A built-in mail: subject, plain text and HTML. */
export interface Message {
  subject: string
  text: string
  html: string
}

/** A built-in mail with a title, escaped lines and at most one button (its URL also in the text part). */
export function message(
  theme: Theme,
  title: string,
  lines: string[],
  button?: { url: string; label: string },
): Message {
  const brand = theme.brandColor && /^#[0-9a-f]{3,8}$/i.test(theme.brandColor) ? theme.brandColor : DEFAULT_EMAIL_BRAND
  const paragraphs = lines.map((line) => `<p style="font-size:14px;color:#444">${escapeHtml(line)}</p>`).join("")
  const action = button
    ? `<p style="text-align:center"><a href="${escapeHtml(button.url)}" style="display:inline-block;padding:12px 24px;` +
      `border-radius:6px;background:${brand};color:#fff;text-decoration:none;font-weight:bold">` +
      `${escapeHtml(button.label)}</a></p>`
    : ""
  const html =
    `<!doctype html><html lang="en"><body style="font-family:Helvetica,Arial,sans-serif;padding:24px">` +
    `<h1 style="font-size:20px;color:#444">${escapeHtml(title)}</h1>${action}${paragraphs}</body></html>`
  const text = [title, ...(button ? [button.url] : []), "", ...lines].join("\n")
  return { subject: title, text, html }
}

const hostOf = (url: string) => new URL(url).host

/** Time limits of one SMTP exchange, in ms (as the Nodemailer provider's), unless `server` sets its own. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 10_000, dnsTimeout: 10_000 }

/**
 * Sends a built-in mail through `server` (an SMTP URL or nodemailer transport options) from `from`. nodemailer (an
 * optional peer dependency) is loaded at the first send. Rejected or pending recipients are errors.
 */
export function smtpSender(server: unknown, from: string | undefined) {
  return async (to: string, content: Message): Promise<void> => {
    const options = typeof server === "string" ? { url: server } : (server as object)
    const { createTransport } = await import("nodemailer")
    const transport = createTransport({ ...SMTP_TIMEOUTS, ...options } as SMTPTransport.Options)
    try {
      const result = await transport.sendMail({ to, from, ...content })
      const failed = [...(result.rejected ?? []), ...(result.pending ?? [])].filter(Boolean)
      if (failed.length > 0) throw new Error("Email could not be sent", { cause: { failed: failed.length } })
    } finally {
      transport.close()
    }
  }
}

/**
 * The four hooks of the Password provider, sending through `server` from `from`. nodemailer (an optional peer
 * dependency) is loaded at the first send, so an app that gives its own hooks never needs it.
 */
export function passwordMailer(server: unknown, from: string | undefined) {
  const send = smtpSender(server, from)
  return {
    sendVerificationRequest: (p: PasswordVerificationParams) =>
      send(
        p.identifier,
        message(
          p.theme,
          `Confirm your email address for ${hostOf(p.url)}`,
          [`This link expires in ${lifetimeText(p.expires)}.`, IGNORE],
          { url: p.url, label: "Confirm email address" },
        ),
      ),
    sendPasswordReset: (p: PasswordResetParams) =>
      send(
        p.identifier,
        message(
          p.theme,
          `Reset your password for ${hostOf(p.url)}`,
          [`This link expires in ${lifetimeText(p.expires)}.`, IGNORE],
          { url: p.url, label: "Choose a new password" },
        ),
      ),
    sendAccountExists: (p: AccountExistsParams) =>
      send(
        p.identifier,
        message(
          p.theme,
          `You already have an account at ${hostOf(p.signInUrl)}`,
          [
            p.verified
              ? "Someone tried to create an account with this address, which already has one. Sign in instead, " +
                `or reset your password: ${p.resetUrl}`
              : "Someone started an account with this address, which was never confirmed. Resetting the password " +
                `makes it yours: ${p.resetUrl}`,
            IGNORE,
          ],
          { url: p.signInUrl, label: "Sign in" },
        ),
      ),
    sendPasswordChanged: (p: PasswordChangedParams) =>
      send(
        p.identifier,
        message(p.theme, "Your password was changed", [
          "The password of your account was just changed. If this was not you, reset your password now and " +
            "review your account.",
        ]),
      ),
  }
}

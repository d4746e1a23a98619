/** The default sign-in email: a plain-text and an HTML version with the link and the host, all escaped. */
import type { Theme } from "../../models"

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const colour = /^#[0-9a-f]{3,8}$/i

/** The built-in pages' default brand colour, so the email's button matches the sign-in page's. */
export const DEFAULT_EMAIL_BRAND = "#334155"

/** "10 minutes", "1 hour", "24 hours": how long a link that expires at `expires` is still valid, from now. */
export function lifetimeText(expires: Date, now = Date.now()): string {
  const minutes = Math.max(1, Math.round((expires.getTime() - now) / 60_000))
  if (minutes < 120) return minutes === 1 ? "1 minute" : `${minutes} minutes`
  const hours = Math.round(minutes / 60)
  return `${hours} hours`
}

export interface SignInMessage {
  subject: string
  text: string
  html: string
}

/**
 * Builds the sign-in message for `url`, saying how long the link lives when `expires` is given. The address the user
 * typed is deliberately not shown (CVE-2022-31127); the host has its dots broken with a zero-width space so mail
 * clients do not turn it into a link. The button takes `theme.brandColor`, else the built-in pages' default.
 *
 * @example
 * ```ts
 * const { subject, text, html } = signInMessage({ url: "https://app.example/auth/callback/email?token=…", theme: {} })
 * ```
 */
export function signInMessage(params: { url: string; theme?: Theme; expires?: Date; code?: string }): SignInMessage {
  const { host } = new URL(params.url)
  const brand =
    params.theme?.brandColor && colour.test(params.theme.brandColor) ? params.theme.brandColor : DEFAULT_EMAIL_BRAND
  const buttonText =
    params.theme?.buttonText && colour.test(params.theme.buttonText) ? params.theme.buttonText : "#ffffff"
  const safeHost = escapeHtml(host).replace(/\./g, "&#8203;.")
  const { expires } = params
  const expiry =
    expires instanceof Date && !Number.isNaN(expires.getTime()) ? `This link expires in ${lifetimeText(expires)}.` : ""
  const href = escapeHtml(params.url)
  // A code is digits only (the core makes it); anything else is not shown.
  const code = params.code && /^[0-9]{4,10}$/.test(params.code) ? params.code : ""
  const html = `<!doctype html>
<html lang="en"><body style="background:#f9f9f9;margin:0;padding:24px;font-family:Helvetica,Arial,sans-serif">
<table width="100%" cellspacing="0" cellpadding="0" role="presentation" style="max-width:600px;margin:auto;background:#fff;border-radius:8px">
<tr><td align="center" style="padding:24px 0 8px;font-size:20px;color:#444">Sign in to <strong>${safeHost}</strong></td></tr>
<tr><td align="center" style="padding:16px">
<a href="${href}" target="_blank" rel="noopener" style="display:inline-block;padding:12px 24px;border-radius:6px;background:${brand};color:${buttonText};font-size:16px;text-decoration:none;font-weight:bold">Sign in</a>
</td></tr>
${code ? `<tr><td align="center" style="padding:8px 16px;font-size:15px;color:#444">Or enter this code: <strong style="font-size:20px;letter-spacing:2px">${code}</strong></td></tr>\n` : ""}<tr><td align="center" style="padding:8px 16px 24px;font-size:13px;color:#777">${expiry ? `${expiry} ` : ""}If you did not request this email you can safely ignore it.</td></tr>
</table></body></html>`
  const text = `Sign in to ${host}\n${params.url}\n\n${code ? `Or enter this code: ${code}\n\n` : ""}${expiry ? `${expiry}\n` : ""}`
  return { subject: `Sign in to ${host}`, text, html }
}

/**
 * The second-factor message: the code in large type, no link, and how long it lives.
 *
 * @example
 * ```ts
 * const { subject, text, html } = twoFactorMessage({ code: "123456", url, expires })
 * ```
 */
export function twoFactorMessage(params: { code: string; url: string; expires?: Date }): SignInMessage {
  const { host } = new URL(params.url)
  const code = /^[0-9]{4,10}$/.test(params.code) ? params.code : ""
  const { expires } = params
  const expiry =
    expires instanceof Date && !Number.isNaN(expires.getTime()) ? `It expires in ${lifetimeText(expires)}.` : ""
  const safeHost = escapeHtml(host).replace(/\./g, "&#8203;.")
  const html = `<!doctype html>
<html lang="en"><body style="background:#f9f9f9;margin:0;padding:24px;font-family:Helvetica,Arial,sans-serif">
<table width="100%" cellspacing="0" cellpadding="0" role="presentation" style="max-width:600px;margin:auto;background:#fff;border-radius:8px">
<tr><td align="center" style="padding:24px 0 8px;font-size:20px;color:#444">Your verification code for <strong>${safeHost}</strong></td></tr>
<tr><td align="center" style="padding:16px;font-size:32px;letter-spacing:6px;font-weight:bold;color:#222">${code}</td></tr>
<tr><td align="center" style="padding:8px 16px 24px;font-size:13px;color:#777">${expiry ? `${expiry} ` : ""}If you did not try to sign in, someone may know your password: change it.</td></tr>
</table></body></html>`
  const text = `Your verification code for ${host}: ${code}\n\n${expiry ? `${expiry}\n` : ""}`
  return { subject: "Your verification code", text, html }
}

/** The verify-request page's sealed address cookie: the masked address it shows (and, with codes, the address). */
import { checkSealer } from "../../kernel/checks"
import { actionUrl, type RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import type { EmailConfig } from "../../../providers/types"
import type { SealedAddress } from "./code"

/**
 * An address as the verify-request page may show it: the first character of the local part, an ellipsis, the domain.
 *
 * @example
 * ```ts
 * maskAddress("ada@example.com") // "a…@example.com"
 * ```
 */
export function maskAddress(email: string): string {
  const at = email.lastIndexOf("@")
  if (at <= 0) return "…"
  return `${Array.from(email.slice(0, at))[0]}…${email.slice(at)}`
}

/**
 * Redirects to verify-request and hands the page the masked address in a sealed, short-lived cookie (the page's URL
 * stays Auth.js's `?provider=…&type=email`). Every outcome that answers "check your email" goes through here, so a
 * throttled, unknown or known address answer alike.
 */
export async function toVerifyRequest(ctx: RequestContext, provider: EmailConfig, email: string): Promise<AuthResult> {
  const { name, options } = ctx.cookies.verifyAddress
  const maxAge = options.maxAge ?? 600
  // With codes on, the address itself travels sealed too, so the code form needs no address field.
  const value: string | SealedAddress = provider.code ? { m: maskAddress(email), a: email } : maskAddress(email)
  const sealed = await checkSealer(ctx.config.secret).seal(
    { purpose: "verifyAddress", provider: provider.id, salt: name, maxAge },
    value,
  )
  ctx.jar.set(name, sealed, { ...options, maxAge })
  return {
    redirect: `${actionUrl(ctx, "verify-request")}?${new URLSearchParams({ provider: provider.id, type: "email" })}`,
  }
}

/**
 * The masked address sealed by the email action for `providerId`, if this browser has a valid one.
 *
 * @example
 * ```ts
 * const shown = await sentToAddress(ctx, "nodemailer") // "a…@example.com" or undefined
 * ```
 */
export async function sentToAddress(ctx: RequestContext, providerId: string): Promise<string | undefined> {
  const { name } = ctx.cookies.verifyAddress
  const opened = await checkSealer(ctx.config.secret).open<unknown>(
    { purpose: "verifyAddress", provider: providerId, salt: name },
    ctx.request.cookies[name],
  )
  const value = opened.ok ? opened.value : undefined
  const masked = typeof value === "object" && value !== null ? (value as Partial<SealedAddress>).m : value
  return typeof masked === "string" && masked.length <= 320 ? masked : undefined
}

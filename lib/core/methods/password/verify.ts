/**
 * Email verification: the link opens a confirmation page (a GET changes nothing); its POST uses the token, sets
 * `emailVerified` and, with `emailVerification.signIn`, signs the user in. Resend mails a new link to an unverified
 * user and answers the same for every address.
 */
import { Verification } from "../../../errors"
import { store } from "../../kernel/config/stores"
import { actionUrl, type RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import { finishSignIn, runSignInCallback } from "../../session/finish-sign-in"
import { okAnswer } from "./answers"
import { addressOf, addressOrNull, addressQuota, checkYourEmail, field, providerOf } from "./common"
import { verifyEmailPage } from "./pages"
import { jsonOr, passwordAccountOf, sendVerificationLink } from "./signup"
import { useLinkToken } from "./tokens"

/**
 * GET `<base>/verify-email?token&email`: the confirmation page (or, with `confirm: false`, the verification itself).
 * POST: use the token and confirm the address.
 *
 * @example
 * ```ts
 * const result = await verifyEmailAction(ctx)
 * ```
 */
export async function verifyEmailAction(ctx: RequestContext): Promise<AuthResult> {
  const provider = providerOf(ctx)
  const token = field(ctx, "token")
  const email = addressOrNull(field(ctx, "email"))
  if (ctx.request.method === "GET" && provider.emailVerification.confirm) {
    return verifyEmailPage(ctx, provider, token ?? "", email ?? "")
  }
  if (!token || !email) throw new Verification("Missing or invalid token or email")
  const adapter = store(ctx.config, "password")
  const user = await adapter.getUserByEmail(email)
  // A verified address has no live verification link: its tokens were bound to "not verified".
  if (!user || !(await useLinkToken(ctx, "verify-email", email, token, user, null))) {
    throw new Verification("Invalid verification link")
  }
  const verified = await adapter.updateUser({ id: user.id, emailVerified: new Date() })
  await ctx.config.events.emailVerified({ user: verified, userId: verified.id })
  if (!provider.emailVerification.signIn) {
    const signIn = ctx.config.pages.signIn ? `${ctx.origin}${ctx.config.pages.signIn}` : actionUrl(ctx, "signin")
    return okAnswer(ctx, `${signIn}?verified=1`)
  }
  const account = passwordAccountOf(verified.id)
  const redirect = await runSignInCallback(ctx, { user: verified, account, credentials: { email } })
  if (redirect) return { redirect }
  return jsonOr(ctx, await finishSignIn(ctx, { user: verified, account, isNewUser: true }))
}

/**
 * POST `<base>/resend-verification {email}`: a new link when the address belongs to an unverified user; the same
 * answer always.
 *
 * @example
 * ```ts
 * const result = await resendVerificationAction(ctx)
 * ```
 */
export async function resendVerificationAction(ctx: RequestContext): Promise<AuthResult> {
  const provider = providerOf(ctx)
  const email = addressOf(ctx.request.body?.email)
  const mayMail = await addressQuota(ctx, email)
  const user = await store(ctx.config, "password").getUserByEmail(email)
  if (mayMail && user && !user.emailVerified) await sendVerificationLink(ctx, provider, email, user)
  return checkYourEmail(ctx, email, "verify")
}

/**
 * Forgot and reset: `POST <base>/forgot-password` answers the same for every address and mails a reset link to a
 * known one; `POST <base>/reset-password` applies the policy first (a refused password leaves the link usable), uses
 * the link bound to the current password hash, writes the new hash by compare-and-swap, confirms the address, ends
 * every session and notifies the user.
 */
import { Verification } from "../../../errors"
import type { AdapterUser } from "../../../storage/adapter"
import { recordAudit } from "../../kernel/audit"
import type { ResolvedPasswordProvider } from "../../kernel/config/password"
import { store } from "../../kernel/config/stores"
import { actionUrl, type RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import { sessionContext } from "../../session/context"
import { revokeUserSessions } from "../../session/manage"
import { okAnswer } from "./answers"
import { addressOf, addressOrNull, addressQuota, checkYourEmail, field, providerOf } from "./common"
import { hashNew } from "./hashing"
import { deliver, linkTo, mailCommon } from "./mail"
import { forgotPasswordPage, resetPasswordPage } from "./pages"
import { acceptPassword } from "./policy"
import { issueLinkToken, useLinkToken } from "./tokens"

/**
 * GET: the forgot page. POST: count the address, and when a user has it, store a reset token and mail the link.
 *
 * @example
 * ```ts
 * const result = await forgotPasswordAction(ctx)
 * ```
 */
export async function forgotPasswordAction(ctx: RequestContext): Promise<AuthResult> {
  const provider = providerOf(ctx)
  if (ctx.request.method === "GET") return forgotPasswordPage(ctx, provider)
  const email = addressOf(ctx.request.body?.email)
  const mayMail = await addressQuota(ctx, email)
  const adapter = store(ctx.config, "password")
  const user = await adapter.getUserByEmail(email)
  if (user && mayMail) {
    // The token is stored with the mail, after the answer: a known address costs the answer no extra work.
    const send = async () => {
      const row = await adapter.getPasswordAccount(user.id)
      const hash = row?.passwordHash ?? null
      const { token, expires } = await issueLinkToken(ctx, "password-reset", email, user, hash, provider.reset.maxAge)
      const url = linkTo(ctx, provider, "reset-password", { token, email })
      await provider.sendPasswordReset({ ...mailCommon(ctx, provider, email, user), url, token, expires })
    }
    await deliver(ctx, provider, "sendPasswordReset", send, true)
  }
  return checkYourEmail(ctx, email, "reset")
}

/** After a new password was written by a reset: confirm the address, end sessions, reset counters, events, mail. */
async function afterReset(ctx: RequestContext, provider: ResolvedPasswordProvider, user: AdapterUser, email: string) {
  const { config } = ctx
  let current = user
  if (!user.emailVerified)
    current = await store(config, "password").updateUser({ id: user.id, emailVerified: new Date() })
  if (provider.reset.revokeSessions) {
    // Database sessions: each row that ends is announced (`signOut`, reason `revoked`); JWTs end by the watermark.
    const list = config.session.strategy === "database" ? config.stores.management?.listSessionsByUserId : undefined
    const rows = list ? await list(user.id) : []
    await revokeUserSessions(config, user.id, { reason: "password-reset", source: sessionContext(ctx) })
    for (const row of rows) await config.events.signOut({ session: row, reason: "revoked" })
  }
  for (const counter of ["window", "long"] as const) {
    await config.rateLimit.reset("credentials-account", "callback/password", `email:${email}`, counter)
  }
  await config.events.passwordReset({ user: current, userId: current.id })
  await recordAudit(sessionContext(ctx), { type: "password.reset", userId: current.id })
  await config.events.passwordChanged({ user: current, userId: current.id, reason: "reset" })
  const send = provider.sendPasswordChanged
  if (send) {
    const params = { ...mailCommon(ctx, provider, email, current), reason: "reset" as const }
    await deliver(ctx, provider, "sendPasswordChanged", () => send(params), false)
  }
}

/**
 * GET: the new-password form (changes nothing). POST: policy, token, compare-and-swap write, then {@link afterReset}.
 *
 * @example
 * ```ts
 * const result = await resetPasswordAction(ctx)
 * ```
 */
export async function resetPasswordAction(ctx: RequestContext): Promise<AuthResult> {
  const provider = providerOf(ctx)
  const token = field(ctx, "token")
  const email = addressOrNull(field(ctx, "email"))
  if (ctx.request.method === "GET") return resetPasswordPage(ctx, provider, token ?? "", email ?? "")
  if (!token || !email) throw new Verification("Missing or invalid token or email")
  const adapter = store(ctx.config, "password")
  const user = await adapter.getUserByEmail(email)
  const normalized = await acceptPassword(provider, ctx.logger, ctx.request.body?.password, {
    email,
    name: user?.name ?? null,
  })
  const row = user ? await adapter.getPasswordAccount(user.id) : null
  const bound = row?.passwordHash ?? null
  const valid = user !== null && (await useLinkToken(ctx, "password-reset", email, token, user, bound))
  // Hashed on every path: a bad link costs what a good one does.
  const hash = await hashNew(provider, normalized)
  if (!valid || !user) throw new Verification("Invalid reset link")
  const written = await adapter.setPasswordHash(user.id, hash, { expected: bound, changedAt: new Date() })
  if (!written) throw new Verification("The password changed meanwhile")
  await afterReset(ctx, provider, user, email)
  const signIn = ctx.config.pages.signIn ? `${ctx.origin}${ctx.config.pages.signIn}` : actionUrl(ctx, "signin")
  return okAnswer(ctx, `${signIn}?reset=1`)
}

/**
 * Change password (`POST <base>/change-password`) and set a first password (`POST <base>/set-password`) for the
 * signed-in user: a fresh session, the current password for a change (rate-limited per user), the policy, a
 * compare-and-swap write; a change ends the user's other sessions (the current one is kept, re-issued).
 */
import {
  InvalidEmail,
  PasswordAlreadySet,
  PasswordIncorrect,
  PasswordNotSet,
  SessionNotFresh,
  SessionRequired,
} from "../../../errors"
import type { AdapterUser } from "../../../storage/adapter"
import { recordAudit } from "../../kernel/audit"
import type { ResolvedPasswordProvider } from "../../kernel/config/password"
import { store } from "../../kernel/config/stores"
import type { RequestContext } from "../../kernel/context"
import { limitIdentifier, resetIdentifier } from "../../kernel/rate-limit/enforce"
import type { AuthResult } from "../../kernel/response"
import { reissuedTokenHeaders } from "../../session/session-route"
import { sessionContext } from "../../session/context"
import { isSessionFresh, revokeOtherSessions } from "../../session/manage"
import { principalForChange } from "../../session/for-change"
import { okAnswer } from "./answers"
import { providerOf } from "./common"
import { hashNew, verifyStored } from "./hashing"
import { deliver, mailCommon } from "./mail"
import { acceptPassword } from "./policy"

/** The signed-in user of a fresh session, through the one door; `SessionRequired` / `SessionNotFresh` otherwise. */
async function freshUser(ctx: RequestContext): Promise<AdapterUser> {
  const session = sessionContext(ctx)
  const door = await principalForChange(session)
  const userId = door.ok ? door.principal.userId : undefined
  if (!userId) throw new SessionRequired("Sign in first")
  if (!(await isSessionFresh(session))) {
    throw new SessionNotFresh("Sign in again to change the password", {
      cause: { freshAge: ctx.config.session.freshAge },
    })
  }
  const user = await store(ctx.config, "password").getUser(userId)
  if (!user) throw new SessionRequired("Sign in first")
  return user
}

async function notify(
  ctx: RequestContext,
  provider: ResolvedPasswordProvider,
  user: AdapterUser,
  reason: "change" | "set",
): Promise<void> {
  await ctx.config.events.passwordChanged({ user, userId: user.id, reason })
  await recordAudit(sessionContext(ctx), { type: "password.changed", userId: user.id, reason })
  const send = provider.sendPasswordChanged
  if (!send || !user.email) return
  const params = { ...mailCommon(ctx, provider, user.email, user), reason }
  await deliver(ctx, provider, "sendPasswordChanged", () => send(params), false)
}

const flagOf = (value: unknown): boolean | undefined =>
  value === true || value === "true" ? true : value === false || value === "false" ? false : undefined

/**
 * POST `<base>/change-password {currentPassword, newPassword}`.
 *
 * @example
 * ```ts
 * const result = await changePasswordAction(ctx)
 * ```
 */
export async function changePasswordAction(ctx: RequestContext): Promise<AuthResult> {
  const provider = providerOf(ctx)
  const user = await freshUser(ctx)
  const adapter = store(ctx.config, "password")
  const row = await adapter.getPasswordAccount(user.id)
  if (!row) throw new PasswordNotSet("The user has no password: set one")
  // `password-change`: every attempt counts (before the hash); a success resets.
  const verdict = await limitIdentifier(ctx, "password-change", user.id)
  if (verdict) throw ctx.config.rateLimit.refuse(verdict)
  const body = ctx.request.body ?? {}
  const raw = typeof body.currentPassword === "string" ? body.currentPassword : ""
  const current = [...raw].slice(0, 4 * provider.maxLength).join("")
  const matches =
    current === raw &&
    raw !== "" &&
    (await verifyStored(provider, ctx.logger, { normalized: raw.normalize("NFKC"), raw, hash: row.passwordHash }))
  if (!matches) throw new PasswordIncorrect("The current password is wrong")
  const normalized = await acceptPassword(provider, ctx.logger, body.newPassword, user)
  const hash = await hashNew(provider, normalized)
  const written = await adapter.setPasswordHash(user.id, hash, { expected: row.passwordHash, changedAt: new Date() })
  if (!written) throw new PasswordIncorrect("The password changed meanwhile")
  await resetIdentifier(ctx, "password-change", user.id)
  if (flagOf(body.revokeOtherSessions) ?? provider.change.revokeOtherSessions) {
    await revokeOtherSessions(sessionContext(ctx), "password-change")
  }
  await notify(ctx, provider, user, "change")
  // A bearer request's re-issued session (the only token still valid after the others were revoked) goes back in
  // `X-Auth-Token` (tokens.md T1.3).
  const answer = okAnswer(ctx, ctx.callbackUrl)
  return { ...answer, headers: { ...answer.headers, ...reissuedTokenHeaders(sessionContext(ctx)) } }
}

/**
 * POST `<base>/set-password {newPassword}`: a first password for a user without one (an OAuth-only user). No session
 * is revoked; the address's verification state is unchanged.
 *
 * @example
 * ```ts
 * const result = await setPasswordAction(ctx)
 * ```
 */
export async function setPasswordAction(ctx: RequestContext): Promise<AuthResult> {
  const provider = providerOf(ctx)
  const user = await freshUser(ctx)
  if (!user.email) throw new InvalidEmail("The user has no email address", { code: "missing" })
  const adapter = store(ctx.config, "password")
  if (await adapter.getPasswordAccount(user.id)) throw new PasswordAlreadySet("The user has a password: change it")
  const normalized = await acceptPassword(provider, ctx.logger, ctx.request.body?.newPassword, user)
  const hash = await hashNew(provider, normalized)
  const written = await adapter.setPasswordHash(user.id, hash, { expected: null, changedAt: new Date() })
  if (!written) throw new PasswordAlreadySet("The user has a password: change it")
  await notify(ctx, provider, user, "set")
  return okAnswer(ctx, ctx.callbackUrl)
}

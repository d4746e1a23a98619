/**
 * `{base}/two-factor`: the second step of a sign-in. GET shows the page (or, to an API client, the challenge as
 * JSON); POST checks a code against the pending sign-in and, once, issues the session the first factor earned.
 */
import { createHmac } from "node:crypto"
import { recordAudit } from "../../kernel/audit"
import type { RequestContext } from "../../kernel/context"
import { constantTimeEqual } from "../../kernel/secrets"
import { pageHeaders, renderTwoFactorPage } from "../../kernel/pages"
import { jsonHeaders, noCacheHeaders, type AuthResult } from "../../kernel/response"
import type { TwoFactorUsed } from "../../kernel/types"
import { sessionContext } from "../../session/context"
import { completeSignIn } from "../../session/finish-sign-in"
import { sendSecondFactorCode } from "../../session/two-factor/decide"
import { clearPending, readPending, twoFactorPageUrl, type PendingSignIn } from "../../session/two-factor/pending"
import { issueTrust } from "../../session/two-factor/trust"
import { useBackupCode, useTotpCode } from "./verify"

/** The scope of the two-factor rate-limit counters (shared by the route and the members). */
export const TWO_FACTOR_SCOPE = "two-factor"

const truthy = (value: unknown): boolean => value === true || value === "1" || value === "on" || value === "true"

function signInUrl(ctx: RequestContext): string {
  const custom = ctx.config.pages.signIn
  if (custom) return custom.startsWith("/") ? `${ctx.origin}${custom}` : custom
  return `${ctx.origin}${ctx.config.basePath}/signin`
}

function withQuery(url: string, query: Record<string, string>): string {
  return `${url}${url.includes("?") ? "&" : "?"}${new URLSearchParams(query)}`
}

function wantsJson(ctx: RequestContext): boolean {
  const accept = ctx.request.headers.get("accept") ?? ""
  return accept.includes("application/json") && !accept.includes("text/html")
}

/** "Start the sign-in again": the pending cookie goes, the browser returns to the sign-in page. */
function required(ctx: RequestContext): AuthResult {
  clearPending(ctx)
  return { redirect: withQuery(signInUrl(ctx), { error: "TwoFactorRequired" }) }
}

function invalid(ctx: RequestContext): AuthResult {
  return { redirect: withQuery(twoFactorPageUrl(ctx), { error: "TwoFactorInvalid" }) }
}

function limited(ctx: RequestContext, retryAfter: number): AuthResult {
  const retry = String(retryAfter)
  return {
    redirect: withQuery(twoFactorPageUrl(ctx), { error: "RateLimited", retry }),
    headers: { "Retry-After": retry },
  }
}

/** The pending sign-in, unless it is missing, expired, unreadable or already used. */
async function livePending(ctx: RequestContext): Promise<PendingSignIn | null> {
  const pending = await readPending(ctx)
  if (!pending) return null
  const [done] = await ctx.config.store.get([`2fa-done:${pending.id}`])
  return done === null ? pending : null
}

async function showChallenge(ctx: RequestContext): Promise<AuthResult> {
  const pending = await livePending(ctx)
  const json = wantsJson(ctx)
  if (!pending) {
    if (json)
      return { status: 401, headers: { ...jsonHeaders, ...noCacheHeaders }, body: { error: "TwoFactorRequired" } }
    return required(ctx)
  }
  const trust = ctx.config.twoFactor!.trustDevice
  if (json) {
    return {
      status: 200,
      headers: { ...jsonHeaders, "Cache-Control": "no-store" },
      body: {
        method: pending.method,
        backupCode: pending.method === "totp",
        trustDevice: trust !== false,
        ...(pending.sentTo ? { sentTo: pending.sentTo } : {}),
        expires: Math.floor((pending.iat + 600_000) / 1000),
      },
    }
  }
  const { query } = ctx.request
  const custom = ctx.config.pages.twoFactor
  if (custom) {
    const kept: Record<string, string> = {}
    for (const key of ["error", "retry", "sent"]) if (typeof query[key] === "string") kept[key] = query[key]
    const target = twoFactorPageUrl(ctx)
    return { redirect: Object.keys(kept).length ? withQuery(target, kept) : target }
  }
  const retry = Number(query.retry)
  const { status, html } = renderTwoFactorPage({
    method: pending.method,
    action: `${ctx.config.basePath}/two-factor`,
    csrfToken: ctx.csrfToken,
    theme: ctx.config.theme,
    trustMaxAge: trust === false ? false : trust.maxAge,
    signInUrl: signInUrl(ctx),
    ...(pending.sentTo ? { sentTo: pending.sentTo } : {}),
    ...(typeof query.error === "string" ? { error: query.error } : {}),
    ...(Number.isFinite(retry) && retry > 0 ? { retry } : {}),
    ...(query.sent === "1" ? { sent: true } : query.sent === "0" ? { sent: false } : {}),
  })
  return { status, headers: { ...pageHeaders, "Cache-Control": "no-store" }, body: html }
}

/** Method `email`: the code against `2fa-email:<challenge>`, compared in constant time. */
async function emailCodeMatches(ctx: RequestContext, pending: PendingSignIn, input: unknown): Promise<boolean> {
  if (typeof input !== "string") return false
  const code = input.replace(/[\s-]+/g, "")
  if (!/^[0-9]{6}$/.test(code)) return false
  const [stored] = await ctx.config.store.get([`2fa-email:${pending.id}`])
  const dot = stored?.indexOf(".") ?? -1
  if (!stored || dot <= 0) return false
  const given = createHmac("sha256", ctx.config.secret[0]!)
    .update(`${stored.slice(0, dot)}\0${code}`)
    .digest("base64url")
  return constantTimeEqual(stored.slice(dot + 1), given)
}

/** Checks the submitted code; the factor it passed (with the backup codes left after one), or `null`. */
async function verify(
  ctx: RequestContext,
  pending: PendingSignIn,
  body: Record<string, unknown>,
): Promise<{ used: TwoFactorUsed; remaining?: number } | null> {
  const { code, backupCode } = body
  // Exactly one of the two fields.
  if ((code === undefined) === (backupCode === undefined)) return null
  const userId = String(pending.user.id)
  if (pending.method === "email") {
    return code !== undefined && (await emailCodeMatches(ctx, pending, code)) ? { used: "email" } : null
  }
  if (code !== undefined) return (await useTotpCode(ctx.config, userId, code, "verified")) ? { used: "totp" } : null
  const row = await useBackupCode(ctx.config, userId, backupCode)
  return row ? { used: "backup-code", remaining: row.backupCodes.filter((c) => c !== null).length } : null
}

/** The audit event of a second-factor check (accounts.md §4.2): ids, the method and a count only, never the code. */
async function auditCheck(
  ctx: RequestContext,
  pending: PendingSignIn,
  checked: { used: TwoFactorUsed; remaining?: number } | null,
): Promise<void> {
  const userId = String(pending.user.id)
  const source = sessionContext(ctx)
  if (!checked) {
    await recordAudit(source, {
      type: "twofactor.used",
      userId,
      outcome: "failure",
      reason: "TwoFactorInvalid",
      details: { method: pending.method },
    })
  } else if (checked.used === "backup-code") {
    await recordAudit(source, {
      type: "twofactor.backup_code_used",
      userId,
      details: { remaining: checked.remaining },
    })
  } else {
    await recordAudit(source, { type: "twofactor.used", userId, details: { method: checked.used } })
  }
}

async function answerChallenge(ctx: RequestContext): Promise<AuthResult> {
  const { config } = ctx
  const pending = await livePending(ctx)
  if (!pending) return required(ctx)
  const body = ctx.request.body ?? {}
  if (truthy(body.resend)) {
    if (pending.method === "email") {
      const send = await sendSecondFactorCode(ctx, pending)
      if (!send.sent && send.retryAfter !== undefined) return limited(ctx, send.retryAfter)
    }
    return { redirect: withQuery(twoFactorPageUrl(ctx), { sent: "1" }) }
  }
  const userId = String(pending.user.id)
  const limiter = config.rateLimit
  if (await limiter.hit("two-factor-challenge", TWO_FACTOR_SCOPE, pending.id)) return required(ctx)
  const locked = await limiter.hit("two-factor-account", TWO_FACTOR_SCOPE, userId)
  if (locked) {
    if (await config.store.consume(`2fa-locked:${userId}`, locked.retryAfter)) {
      await config.events.securityAlert({ type: "twofactor.locked", userId })
    }
    return limited(ctx, locked.retryAfter)
  }
  const checked = await verify(ctx, pending, body)
  if (!checked) {
    await auditCheck(ctx, pending, null)
    return invalid(ctx)
  }
  if (!(await config.store.consume(`2fa-done:${pending.id}`, 600))) return required(ctx)
  await auditCheck(ctx, pending, checked)
  const { used } = checked
  await limiter.reset("two-factor-account", TWO_FACTOR_SCOPE, userId)
  clearPending(ctx)
  if (truthy(body.trustDevice)) await issueTrust(ctx, userId)
  const { user, account, profile, isNewUser, idp, dpopKey } = pending
  return completeSignIn(
    ctx,
    {
      user,
      account,
      ...(profile ? { profile } : {}),
      ...(isNewUser === undefined ? {} : { isNewUser }),
      ...(idp ? { idp } : {}),
      ...(dpopKey ? { dpopKey } : {}),
    },
    { twoFactor: used, callbackUrl: pending.callbackUrl },
  )
}

/**
 * The `two-factor` route (CSRF and the `two-factor` IP rule are enforced by the router).
 *
 * @example
 * ```ts
 * await twoFactorAction(ctx) // POST with the right code → 302 to the callback URL with the session cookie
 * ```
 */
export function twoFactorAction(ctx: RequestContext): Promise<AuthResult> {
  return ctx.request.method === "GET" ? showChallenge(ctx) : answerChallenge(ctx)
}

/**
 * `POST <base>/token` (tokens.md T2.4): redeems a one-time native code for a new bearer session. The first attempt
 * burns the code whatever follows; a second redemption revokes what the first issued (RFC 6749 section 4.1.2).
 */
import { createHash } from "node:crypto"
import type { Account } from "../../kernel/types"
import { constantTimeEqual } from "../../kernel/secrets"
import { recordAudit } from "../../kernel/audit"
import { tokenAnswerHeaders } from "../../kernel/bearer"
import { checkSealer } from "../../kernel/checks"
import type { RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import { issueTokenSession } from "../../session/finish-sign-in"
import { sessionContext } from "../../session/context"
import { endBearerSession } from "../../session/sign-out"
import type { SessionContext } from "../../session/types"
import { codeBinding, codeHash, type CodeRecord } from "./confirm"

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/
const issuedBinding = { purpose: "nativeIssued" as const, provider: "gatehouse", salt: "gatehouse.native-issued" }

const descriptions = {
  malformed: "malformed request",
  code_unknown: "code unknown or expired",
  code_reused: "code already used",
  verifier_mismatch: "code_verifier does not match",
  redirect_uri_mismatch: "redirect_uri does not match",
  user_gone: "user not found",
  user_banned: "user not found",
} as const

function refuse(ctx: RequestContext, error: string, reason: keyof typeof descriptions): AuthResult {
  ctx.logger.debug(`native code exchange refused: ${reason}`)
  return { status: 400, headers: { ...tokenAnswerHeaders }, body: { error, error_description: descriptions[reason] } }
}

/** A session context that reads the bearer `bearer` and nothing of the request's cookies. */
function tokenContext(ctx: RequestContext, bearer: string): SessionContext {
  const base = sessionContext(ctx)
  return {
    ...base,
    requestCookies: {},
    memo: {},
    tokenOut: {},
    bearer: { token: bearer },
  }
}

const sameHash = (verifier: string, challenge: string): boolean =>
  constantTimeEqual(createHash("sha256").update(verifier).digest("base64url"), challenge)

/**
 * Handles `POST <base>/token` with `code`, `code_verifier`, optional `redirect_uri` and `grant_type`.
 *
 * @example
 * ```ts
 * const result = await exchangeNativeCode(ctx)
 * ```
 */
export async function exchangeNativeCode(ctx: RequestContext): Promise<AuthResult> {
  const { config } = ctx
  const body = ctx.request.body ?? {}
  const { code, code_verifier: verifier, redirect_uri: redirectUri, grant_type: grantType } = body
  if (grantType !== undefined && grantType !== "authorization_code") {
    return {
      status: 400,
      headers: { ...tokenAnswerHeaders },
      body: { error: "unsupported_grant_type", error_description: descriptions.malformed },
    }
  }
  if (typeof code !== "string" || code.length < 1 || code.length > 128)
    return refuse(ctx, "invalid_request", "malformed")
  if (typeof verifier !== "string" || !VERIFIER.test(verifier)) return refuse(ctx, "invalid_request", "malformed")
  if (redirectUri !== undefined && typeof redirectUri !== "string") return refuse(ctx, "invalid_request", "malformed")
  const h = codeHash(code)
  const first = await config.store.consume(`native-used:${h}`, 600)
  if (!first) {
    const [issued] = await config.store.get([`native-issued:${h}`])
    if (issued) await revokeIssued(ctx, issued)
    return refuse(ctx, "invalid_grant", "code_reused")
  }
  const [sealed] = await config.store.get([`native-code:${h}`])
  const opened = sealed ? await checkSealer(config.secret).open<CodeRecord>(codeBinding, sealed) : null
  if (!opened?.ok) return refuse(ctx, "invalid_grant", "code_unknown")
  const record = opened.value
  if (!sameHash(verifier, record.cc)) return refuse(ctx, "invalid_grant", "verifier_mismatch")
  if (redirectUri !== undefined && redirectUri !== record.ru)
    return refuse(ctx, "invalid_grant", "redirect_uri_mismatch")
  const adapter = config.stores.oauth ?? config.stores.webauthn ?? config.stores.credentials
  let user: CodeRecord["user"] = record.user
  if (adapter) {
    const stored = await adapter.getUser(record.u)
    if (!stored) return refuse(ctx, "invalid_grant", "user_gone")
    user = stored
  }
  const provider = config.providerById.get(record.p)
  const account = { provider: record.p, type: provider?.type ?? "credentials", providerAccountId: record.s }
  const issued = await issueTokenSession(ctx, { user, account: account as Account })
  const ref = await checkSealer(config.secret).seal({ ...issuedBinding, maxAge: 600 }, { t: issued.token })
  await config.store.set(`native-issued:${h}`, ref, 600)
  await config.events.nativeSignIn({ user, provider: record.p, redirectUri: record.ru })
  // tokens.md §7: a redeemed native code is a sign-in (provider `p`); the code and the token stay out of it.
  await recordAudit(sessionContext(ctx), {
    type: "signin",
    userId: user.id === undefined || user.id === null ? null : String(user.id),
    provider: record.p,
    details: { newUser: false },
  })
  return { status: 200, headers: { ...tokenAnswerHeaders }, body: { token: issued.token, expires: issued.expires } }
}

/** A code redeemed twice: the session the first redemption issued ends, and the app is told of the reuse. */
async function revokeIssued(ctx: RequestContext, sealed: string): Promise<void> {
  const opened = await checkSealer(ctx.config.secret).open<{ t: string }>(issuedBinding, sealed)
  if (!opened.ok || typeof opened.value.t !== "string") return
  const ended = await endBearerSession(tokenContext(ctx, opened.value.t), "revoked")
  const userId = ended?.userId
  if (userId === undefined) return
  await recordAudit(sessionContext(ctx), {
    type: "session.revoked",
    userId,
    reason: "code-reuse",
    details: { count: 1 },
  })
  await ctx.config.events.securityAlert({ type: "native.code_reuse", userId })
}

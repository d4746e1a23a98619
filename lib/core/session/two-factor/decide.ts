/**
 * The second-factor decision every first factor ends in (called by `finishSignIn` alone): which method applies, the
 * trusted device that may skip it, and the start of a challenge (the pending cookie, an emailed code).
 */
import { createHmac, randomBytes, randomInt } from "node:crypto"
import type { AdapterUser } from "../../../storage/adapter"
import { requestWithParsedBody, type RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import type { Account, User } from "../../kernel/types"
import { newChallengeId, twoFactorPageUrl, writePending, type PendingSignIn, type SecondFactorMethod } from "./pending"

/** What the decision needs of the first factor. */
export interface FirstFactor {
  user: User | AdapterUser
  account: Account | null
  /** A passkey assertion carried the user-verification flag. */
  userVerified?: boolean
}

/**
 * The second factor this sign-in needs, or `null`: none configured; a user-verified passkey under `passkeys: "skip"`;
 * TOTP when the user has a confirmed enrolment; an email code when `required(user)` says so, `"email"` is offered,
 * the first factor was not an email proof and the user has an address.
 *
 * @example
 * ```ts
 * const method = await secondFactorFor(ctx, { user, account })
 * ```
 */
export async function secondFactorFor(
  ctx: Pick<RequestContext, "config" | "request">,
  first: FirstFactor,
): Promise<SecondFactorMethod | null> {
  const twoFactor = ctx.config.twoFactor
  if (!twoFactor) return null
  const { user, account } = first
  if (user.id === undefined || user.id === null || user.id === "") return null
  const type = account?.type ?? "credentials"
  if (type === "webauthn" && first.userVerified === true && twoFactor.passkeys === "skip") return null
  const row = await twoFactor.store.getTwoFactor(String(user.id))
  if (row?.verifiedAt) return "totp"
  // An email link or code, and the Password provider's address verification, are email proofs: never counted twice.
  const emailProof = type === "email" || ctx.request.action === "verify-email"
  if (
    twoFactor.methods.includes("email") &&
    !emailProof &&
    typeof user.email === "string" &&
    user.email !== "" &&
    (await twoFactor.required(user))
  ) {
    return "email"
  }
  return null
}

/** The masked form of an address: first character, an ellipsis, the domain. */
export function maskedAddress(email: string): string {
  const at = email.lastIndexOf("@")
  if (at <= 0) return "…"
  return `${Array.from(email.slice(0, at))[0]}…${email.slice(at)}`
}

/**
 * What a second-factor send did: sent; refused by `email-send-address` with the limiter on (`retryAfter` seconds);
 * or nothing sent and nothing to say (no email provider or address, or over the limit with the limiter off).
 */
export type SecondFactorSend = { sent: true } | { sent: false; retryAfter?: number }

/**
 * Sends a new second-factor code for `pending` (method `email`) and stores its keyed hash as `2fa-email:<id>`,
 * replacing the previous one. Counted by `email-send-address`; over it, sends nothing and answers the seconds until
 * the next send may go when the limiter is on (the caller decides the answer), nothing when it is off.
 *
 * @example
 * ```ts
 * const send = await sendSecondFactorCode(ctx, pending)
 * if (!send.sent && send.retryAfter) return limited(ctx, send.retryAfter)
 * ```
 */
export async function sendSecondFactorCode(ctx: RequestContext, pending: PendingSignIn): Promise<SecondFactorSend> {
  const { config } = ctx
  const providerId = config.twoFactor?.emailProvider
  const provider = providerId ? config.providerById.get(providerId) : undefined
  const email = pending.user.email
  if (!provider || provider.type !== "email" || typeof email !== "string") return { sent: false }
  // The same counter as the sign-in emails of this provider (scope `signin/<id>`, the address).
  const verdict = await config.rateLimit.hit("email-send-address", `signin/${provider.id}`, email.toLowerCase())
  if (verdict) return config.rateLimit.enabled ? { sent: false, retryAfter: verdict.retryAfter } : { sent: false }
  const code = String(randomInt(1_000_000)).padStart(6, "0")
  const sendId = randomBytes(16).toString("base64url")
  const hash = createHmac("sha256", config.secret[0]!).update(`${sendId}\0${code}`).digest("base64url")
  const remaining = Math.max(1, Math.ceil((pending.iat + 600_000 - Date.now()) / 1000))
  await config.store.set(`2fa-email:${pending.id}`, `${sendId}.${hash}`, remaining)
  try {
    await provider.sendVerificationRequest({
      identifier: email,
      token: "",
      code,
      purpose: "two-factor",
      url: twoFactorPageUrl(ctx),
      expires: new Date(Date.now() + remaining * 1000),
      provider,
      theme: provider.theme ?? config.theme,
      request: requestWithParsedBody(ctx),
    })
  } catch (error) {
    // The answer does not wait on the mail: the failure is logged, the user can ask for a new code.
    ctx.logger.error(error instanceof Error ? error : new Error(String(error)))
  }
  return { sent: true }
}

/**
 * Starts the second factor: seals the pending sign-in (no session, no `signIn` event), sends an email code for method
 * `email`, and redirects to the two-factor page. The first factor has passed even when the address is over its send
 * limit: the page then says that no code went out and when to ask for one (`?sent=0&retry=<s>`, `Retry-After`).
 *
 * @example
 * ```ts
 * return startChallenge(ctx, params, "totp")
 * ```
 */
export async function startChallenge(
  ctx: RequestContext,
  first: Omit<PendingSignIn, "id" | "method" | "callbackUrl" | "firstFactor" | "iat">,
  method: SecondFactorMethod,
): Promise<AuthResult> {
  const pending: PendingSignIn = {
    ...first,
    id: newChallengeId(),
    method,
    callbackUrl: ctx.callbackUrl,
    firstFactor: first.account?.type ?? "credentials",
    iat: Date.now(),
    ...(method === "email" && typeof first.user.email === "string" ? { sentTo: maskedAddress(first.user.email) } : {}),
  }
  await writePending(ctx, pending)
  const page = twoFactorPageUrl(ctx)
  if (method === "email") {
    const send = await sendSecondFactorCode(ctx, pending)
    if (!send.sent && send.retryAfter !== undefined) {
      const retry = String(send.retryAfter)
      const query = new URLSearchParams({ sent: "0", retry })
      return { redirect: `${page}${page.includes("?") ? "&" : "?"}${query}`, headers: { "Retry-After": retry } }
    }
  }
  return { redirect: page }
}

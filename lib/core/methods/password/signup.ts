/**
 * Sign-up (`POST <base>/signup`): the same answer, in the same time, for a new and an existing address. A new address
 * gets a user, its password row and a verification link; an existing one gets nothing written and an "account
 * exists" email.
 */
import type { AdapterUser } from "../../../storage/adapter"
import type { ResolvedPasswordProvider } from "../../kernel/config/password"
import { store } from "../../kernel/config/stores"
import type { RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import type { Account } from "../../kernel/types"
import { finishSignIn, runSignInCallback } from "../../session/finish-sign-in"
import { jsonMode } from "./answers"
import { addressOf, addressQuota, checkYourEmail, nameOf, providerOf } from "./common"
import { hashNew } from "./hashing"
import { deliver, linkTo, mailCommon } from "./mail"
import { signUpPage } from "./pages"
import { acceptPassword } from "./policy"
import { issueLinkToken } from "./tokens"

/** The account a password sign-in records (the user id is the provider account id). */
export const passwordAccountOf = (userId: string): Account => ({
  provider: "password",
  type: "password",
  providerAccountId: userId,
  userId,
})

/**
 * Sends a verification link to `user` (background delivery: the answer does not wait).
 *
 * @example
 * ```ts
 * await sendVerificationLink(ctx, provider, email, user)
 * ```
 */
export async function sendVerificationLink(
  ctx: RequestContext,
  provider: ResolvedPasswordProvider,
  email: string,
  user: AdapterUser,
): Promise<void> {
  const withCallback = ctx.request.body?.callbackUrl !== undefined
  // The token is stored with the mail, after the answer: a known address costs the answer no extra write.
  const send = async () => {
    const maxAge = provider.emailVerification.maxAge
    const { token, expires } = await issueLinkToken(ctx, "verify-email", email, user, null, maxAge)
    const query: Record<string, string> = { token, email }
    if (withCallback) query.callbackUrl = ctx.callbackUrl
    const url = linkTo(ctx, provider, "verify-email", query)
    const params = { ...mailCommon(ctx, provider, email, user), url, token, expires, purpose: "verify-email" as const }
    await provider.sendVerificationRequest(params)
  }
  await deliver(ctx, provider, "sendVerificationRequest", send, true)
}

async function createAccount(
  ctx: RequestContext,
  email: string,
  name: string | null,
  hash: string,
): Promise<AdapterUser> {
  const adapter = store(ctx.config, "password")
  const create = async (a: typeof adapter): Promise<AdapterUser> => {
    const user = await a.createUser({ id: crypto.randomUUID(), email, emailVerified: null, name } as AdapterUser)
    await a.setPasswordHash(user.id, hash, { expected: null, changedAt: new Date() })
    return user
  }
  const user = adapter.transaction
    ? await adapter.transaction((tx) => create(tx as unknown as typeof adapter))
    : await create(adapter)
  await ctx.config.events.createUser({ user })
  return user
}

/**
 * GET: the sign-up page. POST: normalise the address, count it, apply the policy, hash (always), then create the
 * account or mail the owner of the existing one.
 *
 * @example
 * ```ts
 * const result = await signUpAction(ctx)
 * ```
 */
export async function signUpAction(ctx: RequestContext): Promise<AuthResult> {
  const provider = providerOf(ctx)
  if (ctx.request.method === "GET") return signUpPage(ctx, provider)
  const body = ctx.request.body ?? {}
  const email = addressOf(body.email)
  const name = nameOf(body.name)
  const mayMail = await addressQuota(ctx, email)
  const normalized = await acceptPassword(provider, ctx.logger, body.password, { email, name })
  // Hashed on both paths, so a known address costs what a new one does.
  const hash = await hashNew(provider, normalized)
  const adapter = store(ctx.config, "password")
  const existing = await adapter.getUserByEmail(email)
  if (existing) {
    if (mayMail) {
      const params = {
        ...mailCommon(ctx, provider, email, existing),
        verified: existing.emailVerified !== null && existing.emailVerified !== undefined,
        signInUrl: linkTo(ctx, provider, "signin"),
        resetUrl: linkTo(ctx, provider, "forgot-password"),
      }
      await deliver(ctx, provider, "sendAccountExists", () => provider.sendAccountExists(params), true)
    }
    return checkYourEmail(ctx, email, "signup")
  }
  const user = await createAccount(ctx, email, name, hash)
  if (!provider.requireEmailVerification && provider.autoSignIn) {
    const account = passwordAccountOf(user.id)
    const redirect = await runSignInCallback(ctx, { user, account, credentials: { email } })
    if (redirect) return { redirect }
    const result = await finishSignIn(ctx, { user, account, isNewUser: true })
    return jsonOr(ctx, result)
  }
  if (mayMail) await sendVerificationLink(ctx, provider, email, user)
  return checkYourEmail(ctx, email, "signup")
}

/** A sign-in's redirect, or `200 {"ok":true}` (cookies kept) in JSON mode. */
export function jsonOr(ctx: RequestContext, result: AuthResult): AuthResult {
  if (!jsonMode(ctx.request.headers) || !result.redirect) return result
  return {
    status: 200,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
    body: { ok: true },
  }
}

/** Email magic links: POST /signin/:email sends the link; GET /callback/:email?token=&email= signs the user in. */
import { randomUUID } from "node:crypto"
import { constantTimeEqual, keyedHash, randomToken } from "../../kernel/secrets"
import type { Adapter, AdapterUser, VerificationToken } from "../../../storage/adapter"
import { store } from "../../kernel/config/stores"
import { AuthError, EmailSignInError, MissingAdapterMethods, Verification } from "../../../errors"
import type { EmailConfig } from "../../../providers/types"
import { actionUrl, requestWithParsedBody, type RequestContext } from "../../kernel/context"
import { normalizeEmail } from "../../kernel/email-address"
import { pageHeaders, renderConfirmEmailPage, renderErrorPage } from "../../kernel/pages"
import { markLinkUsed, wasLinkUsed } from "./used-links"
import { sessionStore } from "../../session/database"
import { currentPrincipal } from "../../session/principal"
import type { AuthResult } from "../../kernel/response"
import type { Account } from "../../kernel/types"
import { finishSignIn, runSignInCallback } from "../../session/finish-sign-in"
import { limitIdentifier } from "../../kernel/rate-limit/enforce"
import { sessionContext } from "../../session/context"
import { codeSignIn, issueSignInCode } from "./code"
import { toVerifyRequest } from "./verify-address"

export { maskAddress, sentToAddress } from "./verify-address"

/** The stored form of a mailed token: the Auth.js keyed hash (`sha256(token + secret)`). */
const hashToken = keyedHash

/** The provider's secrets (or the config's), newest first: the first hashes new tokens, all are tried on use. */
function secretsOf(ctx: RequestContext, provider: EmailConfig): readonly string[] {
  const own = provider.secret
  if (own === undefined) return ctx.config.secret
  const secrets = (Array.isArray(own) ? own : [own]).filter((s) => typeof s === "string" && s.length > 0)
  // An empty provider secret ("" or []) must not hash with `undefined`: fall back to the config's secrets.
  return secrets.length > 0 ? secrets : ctx.config.secret
}

function normalize(provider: EmailConfig, input: unknown): string {
  try {
    const normalized = provider.normalizeIdentifier
      ? provider.normalizeIdentifier(String(input ?? ""))
      : normalizeEmail(input)
    return normalizeEmail(normalized)
  } catch (error) {
    if (error instanceof AuthError) throw error
    throw new EmailSignInError("The address could not be normalised", { cause: error as Error })
  }
}

function account(provider: EmailConfig, email: string, userId: string): Account {
  return { providerAccountId: email, userId, type: "email", provider: provider.id }
}

/**
 * POST /signin/:emailProvider (CSRF-checked by the caller): normalise the address, run the signIn callback with
 * `email.verificationRequest`, store the hash of a fresh token, send the message, and redirect to verify-request.
 * If sending fails, the stored token is consumed again so no usable token is left behind.
 *
 * @example
 * ```ts
 * const result = await sendVerificationEmail(ctx, provider)
 * ```
 */
export async function sendVerificationEmail(ctx: RequestContext, provider: EmailConfig): Promise<AuthResult> {
  const adapter = store(ctx.config, "email")
  const email = normalize(provider, ctx.request.body?.email)
  // EM-13 / `email-send-address`: at most 3 emails per address per 10 minutes, counted before the address is looked
  // up, so a known and an unknown address count and answer alike. With the limiter off this still runs, silently (the
  // usual answer, no email); with it on, the refusal is `RateLimited`.
  const verdict = await limitIdentifier(ctx, "email-send-address", email)
  if (verdict) {
    if (ctx.config.rateLimit.enabled) throw ctx.config.rateLimit.refuse(verdict)
    ctx.logger.error(
      new EmailSignInError("Too many sign-in emails for one address", { cause: { provider: provider.id } }),
    )
    return toVerifyRequest(ctx, provider, email)
  }

  const user = (await adapter.getUserByEmail(email)) ?? { id: randomUUID(), email, emailVerified: null }
  const redirect = await runSignInCallback(ctx, {
    user,
    account: account(provider, email, user.id),
    email: { verificationRequest: true },
  })
  if (redirect) return { redirect }

  const token = (await provider.generateVerificationToken?.()) ?? randomToken()
  const maxAge = provider.maxAge ?? 10 * 60 // the providers' DEFAULT_EMAIL_MAX_AGE, for hand-made email providers
  const expires = new Date(Date.now() + maxAge * 1000)
  // EM-07: the link's origin is configured (provider `url`, else AUTH_URL); only in development may it be the request's.
  const origin = provider.url ? new URL(provider.url).origin : ctx.origin
  const callbackUrl =
    origin === ctx.origin
      ? ctx.callbackUrl
      : await ctx.config.callbacks.redirect({ url: ctx.callbackUrl, baseUrl: origin })
  const url = `${actionUrl({ origin, config: ctx.config }, "callback", provider.id)}?${new URLSearchParams({
    callbackUrl,
    token,
    email,
  })}`
  const hashed = hashToken(token, secretsOf(ctx, provider)[0]!)
  await adapter.createVerificationToken({ identifier: email, token: hashed, expires })
  const code = await issueSignInCode(ctx, provider, { address: email, tokenHash: hashed, callbackUrl, expires })
  try {
    await provider.sendVerificationRequest({
      ...(code ? { code } : {}),
      identifier: email,
      token,
      expires,
      url,
      provider,
      theme: provider.theme ?? ctx.config.theme,
      request: requestWithParsedBody(ctx),
      purpose: "sign-in",
    })
  } catch (error) {
    try {
      await adapter.useVerificationToken({ identifier: email, token: hashed })
    } catch {
      // The adapter error is logged by its wrapper; the send failure is what the user hears about.
    }
    throw new EmailSignInError("Sending the sign-in email failed", {
      cause: { err: error as Error, provider: provider.id },
    })
  }
  return toVerifyRequest(ctx, provider, email)
}

/**
 * EM-14 / ML-10: the first passwordless proof of an address whose user was never verified. Whoever created that user
 * (an OAuth sign-up with an unverified address, a credentials sign-up) never proved the address, so the user is
 * deleted with its account links and sessions, and a fresh verified user (new id) takes its place.
 */
async function recoverUnverifiedUser(ctx: RequestContext, previousUser: AdapterUser): Promise<AdapterUser> {
  const { events } = ctx.config
  const users = store(ctx.config, "email")
  const missing = () =>
    new MissingAdapterMethods("deleteUser and createUser are required to sign in to a never-verified user", {
      cause: { provider: ctx.provider?.id },
    })
  if (!users.deleteUser) throw missing()
  const fresh = { id: randomUUID(), email: previousUser.email, emailVerified: new Date() } as AdapterUser
  const replace = async (a: Adapter): Promise<AdapterUser> => {
    if (!a.deleteUser || !a.createUser) throw missing()
    await a.deleteUser(previousUser.id)
    return a.createUser(fresh)
  }
  const user = users.transaction ? await users.transaction(replace) : await replace(users)
  ctx.logger.debug("never-verified user replaced on first email proof", { provider: ctx.provider?.id })
  await events.createUser({ user })
  await events.accountRecovered({ user, previousUser })
  return user
}

async function consumeToken(ctx: RequestContext, provider: EmailConfig, email: string, token: string) {
  const adapter = store(ctx.config, "email")
  for (const secret of secretsOf(ctx, provider)) {
    const invite = await adapter.useVerificationToken({ identifier: email, token: hashToken(token, secret) })
    if (invite) return invite
  }
  return null
}

/**
 * /callback/:emailProvider with `token` and `email`: a GET renders the confirmation page (unless the provider has
 * `confirm: false`); the POST from it (CSRF-checked) consumes the token atomically for that address, checks its
 * expiry, creates or updates the user (emailVerified), issues the session and redirects.
 *
 * @example
 * ```ts
 * const result = await emailCallback(ctx, provider)
 * ```
 */
export async function emailCallback(ctx: RequestContext, provider: EmailConfig): Promise<AuthResult> {
  const { config } = ctx
  const adapter = store(config, "email")
  const isPost = ctx.request.method === "POST"
  const field = (name: string): string | undefined => {
    const fromBody = isPost ? ctx.request.body?.[name] : undefined
    return typeof fromBody === "string" ? fromBody : ctx.request.query[name]
  }
  if (isPost && ctx.request.body?.token === undefined && ctx.request.body?.code !== undefined) {
    return codeSignIn(
      ctx,
      provider,
      (input) => normalize(provider, input),
      (c, invite) => completeEmailSignIn(c, provider, invite),
    )
  }
  const token = field("token")
  const rawEmail = field("email")
  if (!token || !rawEmail) throw new Verification("Missing token or email", { cause: { hasToken: Boolean(token) } })
  let email: string
  try {
    email = normalize(provider, rawEmail)
  } catch {
    throw new Verification("Invalid email", { cause: { provider: provider.id } })
  }
  // ML-5: opening the link (GET) only shows the confirmation page; its POST (CSRF-checked by the router) signs in.
  if (provider.confirm !== false && !isPost) {
    return (await wasLinkUsed(ctx, token)) ? usedLinkPage(ctx, provider) : confirmPage(ctx, provider, token, email)
  }
  const invite = await consumeToken(ctx, provider, email, token)
  // Fail closed: a missing or invalid expiry from an adapter counts as expired (an ISO string is read as a date).
  const expired = invite ? !(new Date(invite.expires).valueOf() >= Date.now()) : false
  if (!invite || expired || !constantTimeEqual(invite.identifier, email)) {
    throw new Verification("Invalid verification token", { cause: { hasInvite: Boolean(invite), expired } })
  }
  try {
    const signedIn = await completeEmailSignIn(ctx, provider, invite)
    await markLinkUsed(ctx, provider, token)
    return signedIn
  } catch (error) {
    // No token consumed without a session: a sign-in that failed after the token was used (a database that went away
    // in between) puts it back, so the same link works once the service is back. Best effort: the store may be down.
    await Promise.resolve(adapter.createVerificationToken(invite)).catch(() => undefined)
    throw error
  }
}

function usedLinkPage(ctx: RequestContext, provider: EmailConfig): AuthResult {
  const signinUrl = actionUrl(ctx, "signin")
  const page = renderErrorPage({
    error: "EmailLinkUsed",
    origin: ctx.origin,
    signinUrl,
    theme: provider.theme ?? ctx.config.theme,
  })
  return { status: page.status, headers: { ...pageHeaders, "Cache-Control": "no-store" }, body: page.html }
}

function confirmPage(ctx: RequestContext, provider: EmailConfig, token: string, email: string): AuthResult {
  const rendered = renderConfirmEmailPage({
    action: actionUrl(ctx, "callback", provider.id),
    csrfToken: ctx.csrfToken,
    token,
    email,
    callbackUrl: ctx.callbackUrl,
    theme: provider.theme ?? ctx.config.theme,
  })
  return {
    status: rendered.status,
    headers: { ...pageHeaders, "Cache-Control": "no-store" },
    body: rendered.html,
  }
}

/** The part of an email sign-in after its token was consumed: the user, the session and the redirect. */
async function completeEmailSignIn(
  ctx: RequestContext,
  provider: EmailConfig,
  invite: VerificationToken,
): Promise<AuthResult> {
  const { config } = ctx
  const adapter = store(config, "email")
  const existing = await adapter.getUserByEmail(invite.identifier)
  const candidate: AdapterUser = existing ?? { id: randomUUID(), email: invite.identifier, emailVerified: null }
  const emailAccount = account(provider, invite.identifier, candidate.id)
  const redirect = await runSignInCallback(ctx, { user: candidate, account: emailAccount })
  if (redirect) return { redirect }

  let user: AdapterUser
  let isNewUser = false
  if (existing && !existing.emailVerified) {
    user = await recoverUnverifiedUser(ctx, existing)
    isNewUser = true
  } else if (existing) {
    if (config.session.strategy === "database") {
      const door = await currentPrincipal(sessionContext(ctx))
      if (door.ok && door.principal.strategy === "database" && door.principal.userId !== existing.id) {
        await sessionStore(config).deleteSession(door.principal.session.sessionToken)
      }
    }
    user = await adapter.updateUser({ id: existing.id, emailVerified: new Date() })
    await config.events.updateUser({ user })
  } else {
    const { id: _id, ...fields } = candidate
    user = await adapter.createUser({ ...fields, id: randomUUID(), emailVerified: new Date() } as AdapterUser)
    await config.events.createUser({ user })
    isNewUser = true
  }

  return finishSignIn(ctx, { user, account: { ...emailAccount, userId: user.id }, isNewUser })
}

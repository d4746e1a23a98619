/** Email magic links: POST /signin/:email sends the link; GET /callback/:email?token=&email= signs the user in. */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto"
import type { AdapterUser, SessionAdapter, UserAdapter, VerificationTokenAdapter } from "../../adapters/types"
import { AuthError, EmailSignInError, Verification } from "../../errors"
import type { EmailConfig } from "../../providers/types"
import { actionUrl, requestWithParsedBody, type RequestContext } from "../context"
import { normalizeEmail } from "../email/normalize"
import { issueSession } from "../session"
import { currentDatabaseUser } from "../session/database"
import type { AuthResult } from "../response"
import type { Account } from "../types"
import { sessionContext } from "./session"
import { runSignInCallback } from "./sign-in-callback"

type EmailAdapter = UserAdapter & VerificationTokenAdapter

function hashToken(token: string, secret: string): string {
  return createHash("sha256").update(`${token}${secret}`).digest("hex")
}

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
    throw new EmailSignInError(error as Error)
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
  const adapter = ctx.config.adapter as EmailAdapter
  const email = normalize(provider, ctx.request.body?.email)
  const user = (await adapter.getUserByEmail(email)) ?? { id: randomUUID(), email, emailVerified: null }
  const redirect = await runSignInCallback(ctx, {
    user,
    account: account(provider, email, user.id),
    email: { verificationRequest: true },
  })
  if (redirect) return { redirect }

  const token = (await provider.generateVerificationToken?.()) ?? randomBytes(32).toString("hex")
  const maxAge = provider.maxAge ?? 24 * 60 * 60
  const expires = new Date(Date.now() + maxAge * 1000)
  const url = `${actionUrl(ctx, "callback", provider.id)}?${new URLSearchParams({
    callbackUrl: ctx.callbackUrl,
    token,
    email,
  })}`
  const hashed = hashToken(token, secretsOf(ctx, provider)[0]!)
  await adapter.createVerificationToken({ identifier: email, token: hashed, expires })
  try {
    await provider.sendVerificationRequest({
      identifier: email,
      token,
      expires,
      url,
      provider,
      theme: provider.theme ?? ctx.config.theme,
      request: requestWithParsedBody(ctx),
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
  const query = new URLSearchParams({ provider: provider.id, type: "email" })
  return { redirect: `${actionUrl(ctx, "verify-request")}?${query}` }
}

async function consumeToken(ctx: RequestContext, provider: EmailConfig, email: string, token: string) {
  const adapter = ctx.config.adapter as EmailAdapter
  for (const secret of secretsOf(ctx, provider)) {
    const invite = await adapter.useVerificationToken({ identifier: email, token: hashToken(token, secret) })
    if (invite) return invite
  }
  return null
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * GET (or POST) /callback/:emailProvider?token=&email=: consumes the token atomically for that address, checks its
 * expiry, creates or updates the user (emailVerified), issues the session and redirects.
 *
 * @example
 * ```ts
 * const result = await emailCallback(ctx, provider)
 * ```
 */
export async function emailCallback(ctx: RequestContext, provider: EmailConfig): Promise<AuthResult> {
  const { config } = ctx
  const adapter = config.adapter as EmailAdapter
  const token = ctx.request.query.token
  const rawEmail = ctx.request.query.email
  if (!token || !rawEmail) throw new Verification("Missing token or email", { cause: { hasToken: Boolean(token) } })
  let email: string
  try {
    email = normalize(provider, rawEmail)
  } catch {
    throw new Verification("Invalid email", { cause: { provider: provider.id } })
  }
  const invite = await consumeToken(ctx, provider, email, token)
  // Fail closed: a missing or invalid expiry from an adapter counts as expired (an ISO string is read as a date).
  const expired = invite ? !(new Date(invite.expires).valueOf() >= Date.now()) : false
  if (!invite || expired || !sameString(invite.identifier, email)) {
    throw new Verification("Invalid verification token", { cause: { hasInvite: Boolean(invite), expired } })
  }

  const existing = await adapter.getUserByEmail(invite.identifier)
  const candidate: AdapterUser = existing ?? { id: randomUUID(), email: invite.identifier, emailVerified: null }
  const emailAccount = account(provider, invite.identifier, candidate.id)
  const redirect = await runSignInCallback(ctx, { user: candidate, account: emailAccount })
  if (redirect) return { redirect }

  let user: AdapterUser
  let isNewUser = false
  if (existing) {
    if (config.session.strategy === "database") {
      const current = await currentDatabaseUser(sessionContext(ctx))
      if (current && current.user.id !== existing.id) {
        await (config.adapter as SessionAdapter).deleteSession(current.session.sessionToken)
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

  await issueSession(sessionContext(ctx), {
    user,
    account: { ...emailAccount, userId: user.id },
    isNewUser,
    trigger: isNewUser ? "signUp" : "signIn",
  })
  const newUser = config.pages.newUser
  if (isNewUser && newUser) {
    return {
      redirect: `${newUser}${newUser.includes("?") ? "&" : "?"}${new URLSearchParams({ callbackUrl: ctx.callbackUrl })}`,
    }
  }
  return { redirect: ctx.callbackUrl }
}

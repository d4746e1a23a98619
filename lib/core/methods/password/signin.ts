/**
 * Password sign-in (`POST <base>/callback/password`), with the credentials route's conventions: one failure answer
 * and one cost for an unknown address, a user without a password, a wrong password or an unknown hash format (the
 * dummy hash); `EmailNotVerified` only after a correct password; a transparent re-hash after success.
 */
import { AccessDenied, CredentialsSignin, EmailNotVerified } from "../../../errors"
import type { AdapterUser } from "../../../storage/adapter"
import type { ResolvedPasswordProvider } from "../../kernel/config/password"
import { store } from "../../kernel/config/stores"
import { checkSealer } from "../../kernel/checks"
import type { RequestContext } from "../../kernel/context"
import { limitIdentifier, resetIdentifier } from "../../kernel/rate-limit/enforce"
import type { AuthResult } from "../../kernel/response"
import { finishSignIn, runSignInCallback } from "../../session/finish-sign-in"
import { addressOrNull } from "./common"
import { hashNew, needsRehash, spendVerification, verifyStored } from "./hashing"
import { passwordAccountOf } from "./signup"

/**
 * After a rejected sign-in whose answer is the built-in sign-in page (a form the browser posted itself, no custom
 * `pages.signIn`): the typed address, sealed into the 5-minute refill cookie the page reads once (never the password).
 */
async function rememberAddress(ctx: RequestContext, email: string | null): Promise<void> {
  const type = (ctx.request.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase()
  const mode = ctx.request.headers.get("sec-fetch-mode")
  // A server call's error goes to the app's code, which answers: never the built-in page; so does raw mode's.
  const builtIn =
    !ctx.config.pages.signIn &&
    ctx.trusted !== true &&
    !ctx.config.raw &&
    !ctx.request.headers.has("X-Auth-Return-Redirect") &&
    (mode === null || mode === "navigate") &&
    type === "application/x-www-form-urlencoded"
  if (!builtIn || !email) return
  const { name, options } = ctx.cookies.credentialsRefill
  const maxAge = options.maxAge ?? 300
  const binding = { purpose: "credentialsRefill" as const, provider: "password", salt: name, maxAge }
  ctx.jar.setKeptOnError(name, await checkSealer(ctx.config.secret).seal(binding, { email }), { ...options, maxAge })
}

/** The rate-limit subject of the address (as a credentials form's `email` field). */
const subjectOf = (email: string) => `email:${email}`

/** Verifies the typed password for the address; the user only when it matches, `null` for every failure alike. */
async function check(
  ctx: RequestContext,
  provider: ResolvedPasswordProvider,
  email: string | null,
  raw: string,
): Promise<{ user: AdapterUser; hash: string; normalized: string } | null> {
  // No policy at sign-in (an older, looser policy's passwords still sign in); the input is capped (2.6).
  const capped = [...raw].slice(0, 4 * provider.maxLength).join("")
  const normalized = capped.normalize("NFKC")
  const tooLong = capped !== raw
  const adapter = store(ctx.config, "password")
  const user = email ? await adapter.getUserByEmail(email) : null
  const row = user ? await adapter.getPasswordAccount(user.id) : null
  if (!user || !row || tooLong || raw === "") {
    await spendVerification(provider, normalized)
    return null
  }
  const ok = await verifyStored(provider, ctx.logger, { normalized, raw, hash: row.passwordHash })
  return ok ? { user, hash: row.passwordHash, normalized } : null
}

/**
 * Signs a user in with an email address and password.
 *
 * @example
 * ```ts
 * const result = await passwordSignIn(ctx, provider)
 * ```
 */
export async function passwordSignIn(ctx: RequestContext, provider: ResolvedPasswordProvider): Promise<AuthResult> {
  const body = ctx.request.body ?? {}
  const email = addressOrNull(body.email)
  const raw = typeof body.password === "string" ? body.password : ""
  // `credentials-account`: every attempt counts against the address before any work; a success resets it.
  const subject = subjectOf(
    email ??
      String(body.email ?? "")
        .toLowerCase()
        .slice(0, 320),
  )
  const verdict =
    (await limitIdentifier(ctx, "credentials-account", subject)) ??
    (await limitIdentifier(ctx, "credentials-account", subject, "long"))
  if (verdict) throw ctx.config.rateLimit.refuse(verdict)

  const found = await check(ctx, provider, email, raw)
  if (!found) {
    await rememberAddress(ctx, email)
    throw new CredentialsSignin()
  }
  await resetIdentifier(ctx, "credentials-account", subject)
  await resetIdentifier(ctx, "credentials-account", subject, "long")
  const { user, hash, normalized } = found
  if (provider.requireEmailVerification && !user.emailVerified) {
    await rememberAddress(ctx, email)
    throw new EmailNotVerified("Confirm the email address first", { cause: { provider: provider.id } })
  }
  if (needsRehash(provider, hash)) {
    // Compare-and-swap on the hash just verified: a miss means another request changed it first.
    const fresh = await hashNew(provider, normalized)
    await store(ctx.config, "password").setPasswordHash(user.id, fresh, { expected: hash })
  }
  const account = passwordAccountOf(user.id)
  const redirect = await runSignInCallback(ctx, { user, account, credentials: { email: email! } })
  // A token sign-in (tokens.md T1.4) cannot follow a redirect: the callback's URL is a refusal.
  if (redirect && ctx.tokenAnswer) throw new AccessDenied("The signIn callback returned a URL")
  if (redirect) return { redirect }
  return finishSignIn(ctx, { user, account })
}

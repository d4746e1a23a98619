/** POST /callback/credentials (CSRF-checked): `authorize()`, the signIn callback, a session, a redirect. */
import { randomUUID } from "node:crypto"
import type { AdapterUser } from "../../../storage/adapter"
import { store } from "../../kernel/config/stores"
import { AccessDenied, AuthError, CallbackRouteError, CredentialsSignin, InvalidConfig } from "../../../errors"
import type { CredentialsConfig } from "../../../providers/types"
import { requestWithParsedBody, type RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import type { Account, Awaitable, User } from "../../kernel/types"
import { finishSignIn, runSignInCallback } from "../../session/finish-sign-in"
import { accountSubjects, limitIdentifier, resetIdentifier } from "../../kernel/rate-limit/enforce"
import { checkSealer } from "../../kernel/checks"
import { mayReadSecondArgument } from "./reads-request"

/** The sealer binding of the refill cookie: one per provider. */
const refillBinding = (ctx: RequestContext, provider: string) => ({
  purpose: "credentialsRefill" as const,
  provider,
  salt: ctx.cookies.credentialsRefill.name,
})

/** The most characters a refilled value keeps; longer values are not refilled. */
const REFILL_MAX_LENGTH = 256

/**
 * The fields of `provider`'s form a rejected sign-in may hand back: declared, not `type: "password"` (nor hidden), a
 * string of at most {@link REFILL_MAX_LENGTH} characters. A password is never kept.
 */
function refillable(provider: Pick<CredentialsConfig, "credentials">, body: Record<string, unknown>) {
  const kept: Record<string, string> = {}
  for (const [key, input] of Object.entries(provider.credentials ?? {})) {
    const type = typeof input.type === "string" ? input.type.toLowerCase() : "text"
    const value = body[key]
    if (type === "password" || type === "hidden") continue
    if (typeof value === "string" && value !== "" && value.length <= REFILL_MAX_LENGTH) kept[key] = value
  }
  return kept
}

/**
 * Whether the answer to a rejected attempt takes this browser to the built-in sign-in page: no custom
 * `pages.signIn`, and a form the browser posted itself (a form content type, no `X-Auth-Return-Redirect`, no JSON,
 * not a `fetch()`). A script such as the Auth.js client's `signIn("credentials", { redirect: false })` gets a URL back
 * and never shows the built-in form, so nothing is kept for it.
 */
function showsBuiltInForm(ctx: RequestContext): boolean {
  // A server call's error goes to the app's code, which answers: never the built-in page. So does an error that
  // raw mode rethrows to the framework (every `AuthError` here, since `X-Auth-Return-Redirect` already returned false).
  if (ctx.config.pages.signIn || ctx.trusted === true || ctx.config.raw) return false
  const { headers } = ctx.request
  if (headers.has("X-Auth-Return-Redirect")) return false
  const mode = headers.get("sec-fetch-mode")
  if (mode !== null && mode !== "navigate") return false
  const type = (headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase()
  return type === "application/x-www-form-urlencoded" || type === "multipart/form-data"
}

/**
 * After a rejected credentials sign-in whose answer is the built-in sign-in page: seal the form's non-password fields
 * into a 5-minute cookie that page reads once, so the user retypes only the password. The cookie is kept on the error
 * answer.
 */
async function rememberRejectedFields(ctx: RequestContext, provider: CredentialsConfig): Promise<void> {
  if (!showsBuiltInForm(ctx)) return
  const fields = refillable(provider, ctx.request.body ?? {})
  if (Object.keys(fields).length === 0) return
  const { name, options } = ctx.cookies.credentialsRefill
  const maxAge = options.maxAge ?? 300
  const sealed = await checkSealer(ctx.config.secret).seal({ ...refillBinding(ctx, provider.id), maxAge }, fields)
  ctx.jar.setKeptOnError(name, sealed, { ...options, maxAge })
}

/**
 * The fields a rejected sign-in with `provider` left for this browser (see {@link rememberRejectedFields}), and the
 * cookie's deletion queued: a refill happens once.
 *
 * @example
 * ```ts
 * const values = await refilledFields(ctx, provider) // { username: "ada" } or {}
 * ```
 */
export async function refilledFields(
  ctx: RequestContext,
  provider: Pick<CredentialsConfig, "id" | "credentials">,
): Promise<Record<string, string>> {
  const { name, options } = ctx.cookies.credentialsRefill
  const token = ctx.request.cookies[name]
  if (token === undefined) return {}
  const opened = await checkSealer(ctx.config.secret).open<unknown>(refillBinding(ctx, provider.id), token)
  if (!opened.ok || typeof opened.value !== "object" || opened.value === null) return {}
  ctx.jar.delete(name, options)
  // Re-filter on the way out: only fields the provider still declares as refillable come back.
  return refillable(provider, opened.value as Record<string, unknown>)
}

/**
 * Deletes the refill cookie this browser carries, if any: what a rejected attempt left must not outlive a sign-in, a
 * sign-out, or the page that showed it, or the next person at a shared browser would see the name typed.
 *
 * @example
 * ```ts
 * forgetRejectedFields(ctx) // after a successful sign-in
 * ```
 */
export function forgetRejectedFields(ctx: RequestContext): void {
  const { name, options } = ctx.cookies.credentialsRefill
  if (ctx.request.cookies[name] !== undefined) ctx.jar.delete(name, options)
}

async function authorize(ctx: RequestContext, provider: CredentialsConfig): Promise<User> {
  const credentials = { ...(ctx.request.body ?? {}) }
  let user: User | null
  try {
    // The request is built only for an `authorize` that can receive it: most take the credentials alone.
    user = mayReadSecondArgument(provider.authorize)
      ? await provider.authorize(credentials, requestWithParsedBody(ctx))
      : await (provider.authorize as (credentials: Record<string, unknown>) => Awaitable<User | null>)(credentials)
  } catch (error) {
    if (error instanceof AuthError) throw error
    throw new CallbackRouteError("authorize threw", { cause: { err: error as Error, provider: provider.id } })
  }
  if (!user) throw new CredentialsSignin()
  return user
}

/**
 * With database sessions the signed-in user must exist in the adapter: found by the id `authorize()` returned, or
 * created with it. Never merged by email (CR-08): an unknown id with the address of another stored user is refused.
 */
async function databaseUser(ctx: RequestContext, user: User): Promise<AdapterUser> {
  const adapter = store(ctx.config, "credentials")
  const existing = await adapter.getUser(String(user.id))
  if (existing) return existing
  if (user.email && (await adapter.getUserByEmail(user.email))) {
    throw new InvalidConfig("authorize() returned an unknown user id with the email of another user", {
      cause: { provider: ctx.provider?.id },
    })
  }
  const created = await adapter.createUser({
    ...user,
    id: String(user.id),
    email: user.email ?? null,
    emailVerified: null,
  } as AdapterUser)
  await ctx.config.events.createUser({ user: created })
  return created
}

/**
 * Signs a user in with a credentials provider.
 *
 * @example
 * ```ts
 * const result = await credentialsCallback(ctx, provider)
 * ```
 */
export async function credentialsCallback(ctx: RequestContext, provider: CredentialsConfig): Promise<AuthResult> {
  // `credentials-account`: every attempt is counted before `authorize` (atomically, so parallel guesses cannot slip
  // through), against every account it names, and a success resets the counts; so it counts failures, and the 11th
  // attempt after 10 is refused unseen. Its long counter caps consecutive failures at 100 per 24 h (E.2 rule 2).
  const subjects = accountSubjects(provider, ctx.request.body)
  for (const subject of subjects) {
    const verdict =
      (await limitIdentifier(ctx, "credentials-account", subject)) ??
      (await limitIdentifier(ctx, "credentials-account", subject, "long"))
    if (verdict) throw ctx.config.rateLimit.refuse(verdict)
  }
  let authorized: User
  try {
    authorized = await authorize(ctx, provider)
  } catch (error) {
    if (error instanceof CredentialsSignin) await rememberRejectedFields(ctx, provider)
    throw error
  }
  for (const subject of subjects) {
    await resetIdentifier(ctx, "credentials-account", subject)
    await resetIdentifier(ctx, "credentials-account", subject, "long")
  }
  let user: User = { ...authorized, id: authorized.id ? String(authorized.id) : randomUUID() }
  const account: Account = { providerAccountId: String(user.id), type: "credentials", provider: provider.id }
  const redirect = await runSignInCallback(ctx, { user, account, credentials: ctx.request.body ?? {} })
  if (redirect) {
    // A token sign-in cannot follow a redirect: the callback's URL is a refusal (tokens.md T1.4).
    if (ctx.tokenAnswer) throw new AccessDenied("The signIn callback returned a URL")
    return { redirect }
  }
  if (ctx.config.session.strategy === "database") user = await databaseUser(ctx, user)
  return finishSignIn(ctx, { user, account })
}

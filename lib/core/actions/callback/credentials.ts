/** POST /callback/credentials (CSRF-checked): `authorize()`, the signIn callback, a session, a redirect. */
import { randomUUID } from "node:crypto"
import type { AdapterUser } from "../../../adapters/types"
import { store } from "../../config/stores"
import { AuthError, CallbackRouteError, CredentialsSignin, InvalidConfig } from "../../../errors"
import type { CredentialsConfig } from "../../../providers/types"
import { requestWithParsedBody, type RequestContext } from "../../context"
import type { AuthResult } from "../../response"
import type { Account, User } from "../../types"
import { finishSignIn, runSignInCallback } from "../finish-sign-in"
import { accountIdentifier, limitIdentifier, resetIdentifier } from "../../rate-limit/enforce"

async function authorize(ctx: RequestContext, provider: CredentialsConfig): Promise<User> {
  const credentials = { ...(ctx.request.body ?? {}) }
  const request = requestWithParsedBody(ctx)
  let user: User | null
  try {
    user = await provider.authorize(credentials, request)
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
  // through) and a success resets the count; so it counts failures, and the 11th attempt after 10 is refused unseen.
  // Its long counter caps consecutive failures at 100 per 24 h (E.2 rule 2).
  const identifier = accountIdentifier(ctx.request.body)
  if (identifier !== undefined) {
    const verdict =
      (await limitIdentifier(ctx, "credentials-account", identifier)) ??
      (await limitIdentifier(ctx, "credentials-account", identifier, "long"))
    if (verdict) throw ctx.config.rateLimit.refuse(verdict)
  }
  const authorized = await authorize(ctx, provider)
  if (identifier !== undefined) {
    await resetIdentifier(ctx, "credentials-account", identifier)
    await resetIdentifier(ctx, "credentials-account", identifier, "long")
  }
  let user: User = { ...authorized, id: authorized.id ? String(authorized.id) : randomUUID() }
  const account: Account = { providerAccountId: String(user.id), type: "credentials", provider: provider.id }
  const redirect = await runSignInCallback(ctx, { user, account, credentials: ctx.request.body ?? {} })
  if (redirect) return { redirect }
  if (ctx.config.session.strategy === "database") user = await databaseUser(ctx, user)
  return finishSignIn(ctx, { user, account })
}

/** POST /callback/credentials (CSRF-checked): `authorize()`, the signIn callback, a session, a redirect. */
import { randomUUID } from "node:crypto"
import type { AdapterUser, UserAdapter } from "../../../adapters/types"
import { AuthError, CallbackRouteError, CredentialsSignin, MissingCSRF } from "../../../errors"
import type { CredentialsConfig } from "../../../providers/types"
import { requestWithParsedBody, type RequestContext } from "../../context"
import { issueSession } from "../../session"
import type { AuthResult } from "../../response"
import type { Account, User } from "../../types"
import { sessionContext } from "../session"
import { runSignInCallback } from "../sign-in-callback"

async function authorize(ctx: RequestContext, provider: CredentialsConfig): Promise<User> {
  const credentials = { ...(ctx.request.body ?? {}) }
  const request = requestWithParsedBody(ctx)
  let user: User | null
  try {
    user = await provider.authorize(credentials, request)
  } catch (error) {
    if (error instanceof AuthError) throw error
    throw new CallbackRouteError(error as Error, { cause: { provider: provider.id } })
  }
  if (!user) throw new CredentialsSignin()
  return user
}

/**
 * With database sessions the signed-in user must exist in the adapter: find it by id (then email) or create it.
 */
async function databaseUser(ctx: RequestContext, user: User): Promise<AdapterUser> {
  const adapter = ctx.config.adapter as UserAdapter
  const existing =
    (await adapter.getUser(String(user.id))) ?? (user.email ? await adapter.getUserByEmail(user.email) : null)
  if (existing) return existing
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
  if (!ctx.csrfVerified) throw new MissingCSRF("CSRF token was missing during an action callback")
  const authorized = await authorize(ctx, provider)
  let user: User = { ...authorized, id: authorized.id ? String(authorized.id) : randomUUID() }
  const account: Account = { providerAccountId: String(user.id), type: "credentials", provider: provider.id }
  const redirect = await runSignInCallback(ctx, { user, account, credentials: ctx.request.body ?? {} })
  if (redirect) return { redirect }
  if (ctx.config.session.strategy === "database") user = await databaseUser(ctx, user)
  await issueSession(sessionContext(ctx), { user, account, trigger: "signIn" })
  return { redirect: ctx.callbackUrl }
}

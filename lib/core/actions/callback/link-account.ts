/** Account linking for OAuth sign-ins with an adapter (reference-behavior 6.4, without its createUser quirk). */
import type { AdapterAccount, AdapterUser, UserAdapter } from "../../../adapters/types"
import { OAuthAccountNotLinked } from "../../../errors"
import type { ResolvedOAuthProvider } from "../../../oauth"
import type { RequestContext } from "../../context"
import { readSessionCookie } from "../../cookies/session-store"
import { currentDatabaseUser } from "../../session/database"
import type { Account, Profile, User } from "../../types"
import { sessionContext } from "../session"

/** The user the request is currently signed in as, if any (JWT: by `sub`; database: by session). */
async function currentUser(ctx: RequestContext): Promise<AdapterUser | null> {
  const { config, cookies } = ctx
  const adapter = config.adapter as UserAdapter
  if (config.session.strategy === "database") return (await currentDatabaseUser(sessionContext(ctx)))?.user ?? null
  const token = readSessionCookie(ctx.request.cookies, cookies.sessionToken.name).value
  if (!token) return null
  try {
    const payload = await config.jwt.decode({ token, secret: config.secret, salt: cookies.sessionToken.name })
    return payload?.sub ? await adapter.getUser(payload.sub) : null
  } catch {
    return null
  }
}

function storedAccount(provider: ResolvedOAuthProvider, account: Account, userId: string): AdapterAccount {
  const picked = provider.account ? (provider.account(account) ?? {}) : {}
  return {
    ...picked,
    providerAccountId: account.providerAccountId,
    provider: account.provider,
    type: account.type as AdapterAccount["type"],
    userId,
  }
}

/**
 * Decides which user an OAuth sign-in belongs to, creating and linking as the table of reference 6.4 says.
 *
 * @example
 * ```ts
 * const { user, isNewUser } = await linkOrRegister(ctx, provider, { userFromProvider, userByAccount, account, profile })
 * ```
 */
export async function linkOrRegister(
  ctx: RequestContext,
  provider: ResolvedOAuthProvider,
  params: { userFromProvider: User; userByAccount: AdapterUser | null; account: Account; profile: Profile },
): Promise<{ user: AdapterUser; isNewUser: boolean }> {
  const { config } = ctx
  const adapter = config.adapter as UserAdapter
  const { userFromProvider, userByAccount, account } = params
  const signedIn = await currentUser(ctx)

  if (userByAccount) {
    if (signedIn && signedIn.id !== userByAccount.id) {
      throw new OAuthAccountNotLinked("The account is already associated with another user", {
        cause: { provider: provider.id },
      })
    }
    return { user: userByAccount, isNewUser: false }
  }

  const link = async (user: AdapterUser) => {
    const stored = storedAccount(provider, account, user.id)
    await adapter.linkAccount(stored)
    await config.events.linkAccount({ user, account: stored as Account, profile: userFromProvider })
  }

  if (signedIn) {
    await link(signedIn)
    return { user: signedIn, isNewUser: false }
  }

  const email = typeof userFromProvider.email === "string" ? userFromProvider.email : null
  const userByEmail = email ? await adapter.getUserByEmail(email) : null
  if (userByEmail) {
    if (!provider.allowDangerousEmailAccountLinking) {
      throw new OAuthAccountNotLinked("Another account already exists with the same e-mail address", {
        cause: { provider: provider.id },
      })
    }
    await link(userByEmail)
    return { user: userByEmail, isNewUser: false }
  }

  const { id: _id, ...fields } = userFromProvider
  const user = await adapter.createUser({
    ...fields,
    id: crypto.randomUUID(),
    email,
    emailVerified: null,
  } as AdapterUser)
  await config.events.createUser({ user })
  await link(user)
  return { user, isNewUser: true }
}

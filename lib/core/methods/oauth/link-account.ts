/** Account linking for OAuth sign-ins with an adapter (Auth.js's linking rules, without its createUser quirk). */
import type { Adapter, AdapterAccount, AdapterUser } from "../../../storage/adapter"
import { store } from "../../kernel/config/stores"
import type { OAuthUserStore } from "../../kernel/config/types"
import { MissingAdapterMethods, OAuthAccountNotLinked } from "../../../errors"
import type { ResolvedOAuthProvider } from "../../../oauth"
import type { RequestContext } from "../../kernel/context"
import { signedInUser } from "../../session/principal"
import { principalForChange } from "../../session/for-change"
import type { Account, Profile, User } from "../../kernel/types"
import { sessionContext } from "../../session/context"
import { recordAudit } from "../../kernel/audit"

/** The account row an OAuth sign-in stores for `userId` (what `provider.account()` picks, the DPoP key, the ids). */
export function storedAccount(provider: ResolvedOAuthProvider, account: Account, userId: string): AdapterAccount {
  const picked = provider.account ? (provider.account(account) ?? {}) : {}
  // A DPoP sign-in's sealed key (and its public thumbprint) goes with the tokens, whatever `account()` picks.
  const dpop = Object.fromEntries(
    (["dpop_key", "dpop_jkt"] as const).filter((k) => typeof account[k] === "string").map((k) => [k, account[k]]),
  )
  return {
    ...picked,
    ...dpop,
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
  const adapter = store(config, "oauth")
  const { userFromProvider, userByAccount, account } = params
  const signedIn = await signedInUser(sessionContext(ctx))

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
    // Linking to the signed-in user changes them: never from an impersonation session.
    await principalForChange(sessionContext(ctx))
    await link(signedIn)
    await recordAudit(sessionContext(ctx), { type: "account.linked", userId: signedIn.id, provider: provider.id })
    return { user: signedIn, isNewUser: false }
  }

  const email = typeof userFromProvider.email === "string" ? userFromProvider.email : null
  const userByEmail = email ? await adapter.getUserByEmail(email) : null
  if (userByEmail) {
    // GHSA-g38m: even when allowed, link implicitly only if both sides vouch for the address — the local user has
    // verified it (else an attacker could pre-register the victim's email) and the provider says so: the boolean
    // `email_verified: true` (a string "false" or an absent claim is no proof), or a provider that always verifies.
    const providerVerified = params.profile.email_verified === true || provider.emailAlwaysVerified
    const verifiedOnBothSides = Boolean(userByEmail.emailVerified) && providerVerified
    if (!provider.allowDangerousEmailAccountLinking || !verifiedOnBothSides) {
      throw new OAuthAccountNotLinked("Another account already exists with the same e-mail address", {
        cause: { provider: provider.id },
      })
    }
    await link(userByEmail)
    return { user: userByEmail, isNewUser: false }
  }

  const { id: _id, ...fields } = userFromProvider
  const newUser = { ...fields, id: crypto.randomUUID(), email, emailVerified: null } as AdapterUser
  const { user, stored } = await createLinkedUser(adapter, newUser, (userId) =>
    storedAccount(provider, account, userId),
  )
  // Events run once both rows exist, in the reference's order.
  await config.events.createUser({ user })
  await config.events.linkAccount({ user, account: stored as Account, profile: userFromProvider })
  return { user, isNewUser: true }
}

/**
 * Creates a user and links its first account as one unit: in the adapter's `transaction()` when it has one (a failed
 * link rolls the user back), else by deleting the new user again when the link fails. Never a user without account.
 */
async function createLinkedUser(
  adapter: OAuthUserStore,
  newUser: AdapterUser,
  accountFor: (userId: string) => AdapterAccount,
): Promise<{ user: AdapterUser; stored: AdapterAccount }> {
  const write = async (tx: Adapter) => {
    if (!tx.createUser || !tx.linkAccount) {
      throw new MissingAdapterMethods("The transaction adapter lacks createUser or linkAccount")
    }
    const user = await tx.createUser(newUser)
    const stored = accountFor(user.id)
    await tx.linkAccount(stored)
    return { user, stored }
  }
  if (adapter.transaction) return adapter.transaction(write)
  const user = await adapter.createUser(newUser)
  const stored = accountFor(user.id)
  try {
    await adapter.linkAccount(stored)
  } catch (error) {
    await Promise.resolve()
      .then(() => adapter.deleteUser?.(user.id))
      .catch(() => undefined)
    throw error
  }
  return { user, stored }
}

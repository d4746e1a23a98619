/** From a provider profile and token set to the `user` and `account` a sign-in needs, with a stable user id. */
import { OAuthProfileParseError } from "../errors"
import type { Account, Profile, User } from "../models"
import type { TokenSet } from "../providers/types"
import type { ResolvedOAuthProvider } from "./types"

// Fixed namespace so that ids derived here never collide with ids derived for another purpose.
const NAMESPACE = "gatehouse:oauth-user:v1"

/**
 * A stable user id for a provider account, used when no adapter assigns one: a name-based UUID (version 8, RFC 9562)
 * from SHA-256 of the provider id and the provider account id. The same account always gets the same id.
 *
 * @example
 * ```ts
 * await stableUserId("github", "583231") // "3f1c...-8...": identical on every sign-in
 * ```
 */
export async function stableUserId(providerId: string, providerAccountId: string): Promise<string> {
  const name = new TextEncoder().encode(JSON.stringify([NAMESPACE, providerId, providerAccountId]))
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", name)).slice(0, 16)
  bytes[6] = (bytes[6] & 0x0f) | 0x80
  bytes[8] = (bytes[8] & 0x3f) | 0x80
  const hex = Buffer.from(bytes).toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * Runs the provider's `profile()` and builds the user (stable id, lower-cased email) and the account (every token
 * field plus `provider`, `type`, `providerAccountId`).
 *
 * @throws OAuthProfileParseError when `profile()` throws or returns no usable `id`.
 * @example
 * ```ts
 * const { user, account } = await buildUserAndAccount(provider, profile, tokens)
 * ```
 */
export async function buildUserAndAccount(
  provider: ResolvedOAuthProvider,
  profile: Profile,
  tokens: TokenSet,
): Promise<{ user: User; account: Account; formerProviderAccountId?: string }> {
  let mapped: User
  try {
    mapped = await provider.profile(profile, tokens)
  } catch (error) {
    if (error instanceof OAuthProfileParseError) throw error
    throw new OAuthProfileParseError("Profile could not be mapped", {
      cause: { provider: provider.id, err: error instanceof Error ? error : new Error(String(error)) },
    })
  }
  if (!mapped || typeof mapped !== "object") {
    throw new OAuthProfileParseError("Profile could not be mapped", { cause: { provider: provider.id } })
  }
  const rawId = mapped.id
  if ((typeof rawId !== "string" && typeof rawId !== "number") || rawId === "") {
    throw new OAuthProfileParseError("Profile has no id", { cause: { provider: provider.id } })
  }
  const providerAccountId = String(rawId)
  const formerId = provider.formerAccountId?.(profile)
  const formerProviderAccountId =
    typeof formerId === "string" && formerId !== "" && formerId !== providerAccountId ? formerId : undefined
  const user: User = {
    ...mapped,
    // Without an adapter the user id is derived; from the former account id when there is one, so it stays the same.
    id: await stableUserId(provider.id, formerProviderAccountId ?? providerAccountId),
  }
  if (typeof user.email === "string") user.email = user.email.toLowerCase()
  const account: Account = {
    ...tokens,
    provider: provider.id,
    type: provider.type,
    providerAccountId,
  }
  return { user, account, ...(formerProviderAccountId ? { formerProviderAccountId } : {}) }
}

/** Bitbucket Cloud (OAuth 2); the email comes from `/2.0/user/emails`, as `/2.0/user` has none. */
import type { Profile, User } from "../models"
import type { OAuthConfig, OAuthUserConfig, TokenSet } from "./types"

/** The user as `GET /2.0/user` returns it, plus the `email` this provider adds from `/2.0/user/emails`. */
export interface BitbucketProfile {
  /** The account UUID, braces included, e.g. `{1f2e...}`. */
  uuid: string
  account_id?: string
  display_name: string
  nickname?: string
  links: { avatar?: { href: string }; [link: string]: unknown }
  /** The primary confirmed address, else the first confirmed one; null when there is none. */
  email?: string | null
  [field: string]: unknown
}

/** One entry of `GET /2.0/user/emails`. */
export interface BitbucketEmail {
  email: string
  is_primary: boolean
  is_confirmed: boolean
  type?: string
}

const api = "https://api.bitbucket.org/2.0"

/**
 * Bitbucket sign-in (`type: "oauth"`), scope `account email`. The account id is the Atlassian `account_id` (as
 * Auth.js stores it); an account that Gatehouse 0.1 stored under the `uuid` is re-keyed at its next sign-in.
 *
 * @example
 * ```ts
 * import Bitbucket from "gatehouse-auth/providers/bitbucket"
 * Bitbucket({ clientId: "<consumer key>", clientSecret: "<consumer secret>" })
 * ```
 */
export function Bitbucket<P extends BitbucketProfile = BitbucketProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "bitbucket",
    name: "Bitbucket",
    type: "oauth",
    authorization: { url: "https://bitbucket.org/site/oauth2/authorize", params: { scope: "account email" } },
    token: "https://bitbucket.org/site/oauth2/access_token",
    userinfo: {
      url: `${api}/user`,
      request: ({ tokens, fetch }) => fetchBitbucketUser(tokens, fetch),
    },
    profile(profile: P): User {
      return {
        id: profile.account_id ?? profile.uuid,
        name: profile.display_name ?? profile.nickname ?? null,
        email: profile.email ?? null,
        image: profile.links?.avatar?.href ?? null,
      }
    },
    // Gatehouse 0.1 stored accounts under the uuid: they are re-keyed to account_id at their next sign-in.
    formerAccountId: (profile: P) => profile.uuid,
    style: { brandColor: "#0052cc" },
    options,
  }
}

async function fetchBitbucketUser(tokens: TokenSet, fetchImpl: typeof fetch): Promise<Profile> {
  const headers = { Authorization: `Bearer ${tokens.access_token}`, Accept: "application/json" }
  const response = await fetchImpl(`${api}/user`, { headers })
  if (!response.ok) throw new Error("Bitbucket user request failed", { cause: { status: response.status } })
  const profile = (await response.json()) as Record<string, unknown>

  // Only confirmed addresses count: Bitbucket lets anyone add an unconfirmed one.
  const emails = await fetchImpl(`${api}/user/emails`, { headers })
  let email: string | null = null
  if (emails.ok) {
    const { values = [] } = (await emails.json()) as { values?: BitbucketEmail[] }
    const confirmed = values.filter((e) => e.is_confirmed)
    email = (confirmed.find((e) => e.is_primary) ?? confirmed[0])?.email ?? null
  }
  return { ...profile, email }
}

export default Bitbucket

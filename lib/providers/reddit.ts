/** Reddit (OAuth 2); its API wants a descriptive User-Agent, so the user is fetched with a custom request. */
import type { Profile, User } from "../models"
import type { OAuthConfig, OAuthUserConfig, TokenSet } from "./types"

/** The account as `GET /api/v1/me` returns it (common fields). Reddit gives no email address. */
export interface RedditProfile {
  /** The base-36 account id (without the `t2_` prefix). */
  id: string
  name: string
  /** HTML-escaped URL (`&amp;` in the query). */
  icon_img?: string
  snoovatar_img?: string
  verified?: boolean
  has_verified_email?: boolean
  created_utc?: number
  [field: string]: unknown
}

const meUrl = "https://oauth.reddit.com/api/v1/me"

/**
 * Reddit sign-in (`type: "oauth"`), scope `identity`. `email` is always null.
 *
 * @example
 * ```ts
 * import Reddit from "gatehouse-auth/providers/reddit"
 * Reddit({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Reddit<P extends RedditProfile = RedditProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "reddit",
    name: "Reddit",
    type: "oauth",
    authorization: { url: "https://www.reddit.com/api/v1/authorize", params: { scope: "identity" } },
    token: "https://www.reddit.com/api/v1/access_token",
    userinfo: {
      url: meUrl,
      request: ({ tokens, fetch }) => fetchRedditUser(tokens, fetch),
    },
    // Reddit rejects an authorization request without `state`.
    checks: ["pkce", "state"],
    profile(profile: P): User {
      const icon = profile.snoovatar_img || profile.icon_img
      return { id: profile.id, name: profile.name, email: null, image: icon ? icon.replaceAll("&amp;", "&") : null }
    },
    style: { brandColor: "#ff4500" },
    options,
  }
}

async function fetchRedditUser(tokens: TokenSet, fetchImpl: typeof fetch): Promise<Profile> {
  const response = await fetchImpl(meUrl, {
    headers: { Authorization: `Bearer ${tokens.access_token}`, "User-Agent": "gatehouse-auth" },
  })
  if (!response.ok) throw new Error("Reddit user request failed", { cause: { status: response.status } })
  return (await response.json()) as Record<string, unknown>
}

export default Reddit

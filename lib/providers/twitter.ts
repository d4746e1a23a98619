/** Twitter / X (OAuth 2 with PKCE) and the v2 `users/me` endpoint. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The response of `GET /2/users/me?user.fields=profile_image_url`. */
export interface TwitterProfile {
  data: {
    id: string
    name: string
    username: string
    profile_image_url?: string
    [field: string]: unknown
  }
  [field: string]: unknown
}

/**
 * Twitter / X sign-in (`type: "oauth"`), scope `users.read tweet.read offline.access` (X requires `tweet.read` to read
 * users). The v2 API returns no email address, so `email` is null.
 *
 * @example
 * ```ts
 * import Twitter from "gatehouse-auth/providers/twitter"
 * Twitter({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Twitter<P extends TwitterProfile = TwitterProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "twitter",
    name: "Twitter",
    type: "oauth",
    authorization: {
      url: "https://x.com/i/oauth2/authorize",
      params: { scope: "users.read tweet.read offline.access" },
    },
    token: "https://api.x.com/2/oauth2/token",
    userinfo: { url: "https://api.x.com/2/users/me", params: { "user.fields": "profile_image_url" } },
    // X rejects an authorization request without `state`.
    checks: ["pkce", "state"],
    profile({ data }: P): User {
      return { id: data.id, name: data.name, email: null, image: data.profile_image_url ?? null }
    },
    style: { brandColor: "#1da1f2" },
    options,
  }
}

export default Twitter

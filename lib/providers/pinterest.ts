/** Pinterest (OAuth 2, API v5). */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The answer of `GET https://api.pinterest.com/v5/user_account`. */
export interface PinterestProfile {
  account_type: "BUSINESS" | "PINNER" | string
  profile_image?: string
  website_url?: string
  username: string
  [field: string]: unknown
}

/** Options of {@link Pinterest}. */
export type PinterestUserConfig<P extends PinterestProfile = PinterestProfile> = OAuthUserConfig<P>

/**
 * Pinterest sign-in (`type: "oauth"`), scope `user_accounts:read`. The account id is the username (as Auth.js maps
 * it); Pinterest returns no email.
 *
 * @example
 * ```ts
 * import Pinterest from "gatehouse-auth/providers/pinterest"
 * Pinterest({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Pinterest<P extends PinterestProfile = PinterestProfile>(
  options: PinterestUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "pinterest",
    name: "Pinterest",
    type: "oauth",
    authorization: { url: "https://www.pinterest.com/oauth", params: { scope: "user_accounts:read" } },
    token: "https://api.pinterest.com/v5/oauth/token",
    userinfo: "https://api.pinterest.com/v5/user_account",
    profile(profile: P): User {
      return { id: profile.username, name: profile.username, email: null, image: profile.profile_image ?? null }
    },
    style: { brandColor: "#bd081c", text: "#ffffff" },
    options,
  }
}

export default Pinterest

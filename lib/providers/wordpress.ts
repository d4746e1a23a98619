/** WordPress.com (OAuth 2). */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The user as `GET https://public-api.wordpress.com/rest/v1/me` returns it (common fields). */
export interface WordPressProfile {
  ID: number
  login: string
  email: string
  display_name: string
  username?: string
  avatar_URL?: string
  profile_URL?: string
  email_verified?: boolean
  [field: string]: unknown
}

/** Options of {@link WordPress}. */
export type WordPressUserConfig<P extends WordPressProfile = WordPressProfile> = OAuthUserConfig<P>

/**
 * WordPress.com sign-in (`type: "oauth"`), scope `auth`.
 *
 * @example
 * ```ts
 * import WordPress from "gatehouse-auth/providers/wordpress"
 * WordPress({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function WordPress<P extends WordPressProfile = WordPressProfile>(
  options: WordPressUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "wordpress",
    name: "WordPress.com",
    type: "oauth",
    authorization: "https://public-api.wordpress.com/oauth2/authorize?scope=auth",
    token: "https://public-api.wordpress.com/oauth2/token",
    userinfo: "https://public-api.wordpress.com/rest/v1/me",
    profile(profile: P): User {
      return {
        id: String(profile.ID),
        name: profile.display_name ?? null,
        email: profile.email ?? null,
        image: profile.avatar_URL ?? null,
      }
    },
    style: { brandColor: "#3858e9", text: "#ffffff" },
    options,
  }
}

export default WordPress

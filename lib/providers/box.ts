/** Box (OAuth 2). */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The user as `GET https://api.box.com/2.0/users/me` returns it (common fields). */
export interface BoxProfile {
  id: string
  type?: "user"
  name: string
  /** The user's email address. */
  login: string
  avatar_url?: string
  [field: string]: unknown
}

/** Options of {@link Box}. */
export type BoxUserConfig<P extends BoxProfile = BoxProfile> = OAuthUserConfig<P>

/**
 * Box sign-in (`type: "oauth"`), default scope (`openid profile email`, Auth.js's rule; Box grants the scopes of the
 * app's configuration). The email is the Box `login`.
 *
 * @example
 * ```ts
 * import Box from "gatehouse-auth/providers/box"
 * Box({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Box<P extends BoxProfile = BoxProfile>(options: BoxUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "box",
    name: "Box",
    type: "oauth",
    authorization: "https://account.box.com/api/oauth2/authorize",
    token: "https://api.box.com/oauth2/token",
    userinfo: "https://api.box.com/2.0/users/me",
    profile(profile: P): User {
      return {
        id: profile.id,
        name: profile.name ?? null,
        email: profile.login ?? null,
        image: profile.avatar_url ?? null,
      }
    },
    style: { brandColor: "#0061d5", text: "#ffffff" },
    options,
  }
}

export default Box

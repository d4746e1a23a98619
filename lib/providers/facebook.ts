/** Facebook Login (OAuth 2) with the Graph API `/me` endpoint. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The user as `GET /me?fields=id,name,email,picture` returns it. */
export interface FacebookProfile {
  /** The app-scoped user id. */
  id: string
  name?: string
  first_name?: string
  last_name?: string
  /** Absent when the user has no confirmed email or declined the permission. */
  email?: string
  picture?: { data: { url: string; width?: number; height?: number; is_silhouette?: boolean } }
  [field: string]: unknown
}

const graph = "https://graph.facebook.com/v21.0"

/**
 * Facebook sign-in (`type: "oauth"`), scope `email` (the public profile is always granted).
 *
 * @example
 * ```ts
 * import Facebook from "gatehouse-auth/providers/facebook"
 * Facebook({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Facebook<P extends FacebookProfile = FacebookProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "facebook",
    name: "Facebook",
    type: "oauth",
    authorization: { url: "https://www.facebook.com/v21.0/dialog/oauth", params: { scope: "email" } },
    token: `${graph}/oauth/access_token`,
    userinfo: { url: `${graph}/me`, params: { fields: "id,name,email,picture" } },
    // The Graph API reads the client secret as a request parameter.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      return {
        id: profile.id,
        name: profile.name ?? null,
        email: profile.email ?? null,
        image: profile.picture?.data?.url ?? null,
      }
    },
    style: { brandColor: "#1877f2" },
    options,
  }
}

export default Facebook

/** Instagram (OAuth 2, Instagram API with Instagram Login; the Basic Display API closed on 2024-12-04). */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The answer of `GET https://graph.instagram.com/v21.0/me?fields=user_id,username,name,profile_picture_url`. */
export interface InstagramProfile {
  /** The app-scoped id (Auth.js maps the account to it). */
  id: string
  user_id?: string
  username: string
  name?: string
  profile_picture_url?: string
  account_type?: string
  [field: string]: unknown
}

/** Options of {@link Instagram}. */
export type InstagramUserConfig<P extends InstagramProfile = InstagramProfile> = OAuthUserConfig<P>

/**
 * Instagram sign-in (`type: "oauth"`) for professional accounts, scope `instagram_business_basic`, credentials in the
 * body (`client_secret_post`). Differs from Auth.js, whose endpoints belong to the retired Basic Display API: the
 * authorization URL, scope and Graph `v21.0` userinfo URL are those of the Instagram API, and the image is
 * `profile_picture_url`. The account id is still `profile.id`, so accounts linked through Auth.js keep matching.
 * Instagram returns no email.
 *
 * @example
 * ```ts
 * import Instagram from "gatehouse-auth/providers/instagram"
 * Instagram({ clientId: "<Instagram app id>", clientSecret: "<Instagram app secret>" })
 * ```
 */
export function Instagram<P extends InstagramProfile = InstagramProfile>(
  options: InstagramUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "instagram",
    name: "Instagram",
    type: "oauth",
    authorization: { url: "https://www.instagram.com/oauth/authorize", params: { scope: "instagram_business_basic" } },
    token: "https://api.instagram.com/oauth/access_token",
    userinfo: "https://graph.instagram.com/v21.0/me?fields=user_id,username,name,profile_picture_url",
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      return { id: profile.id, name: profile.username ?? null, email: null, image: profile.profile_picture_url ?? null }
    },
    style: { brandColor: "#e1306c", text: "#ffffff" },
    options,
  }
}

export default Instagram

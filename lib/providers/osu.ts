/** osu! (OAuth 2) with the API v2 `/me` endpoint. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The user as `GET /api/v2/me` returns it (common fields). osu! gives no email address. */
export interface OsuProfile {
  id: number
  username: string
  avatar_url: string
  country_code?: string
  is_bot?: boolean
  is_restricted?: boolean
  [field: string]: unknown
}

/**
 * osu! sign-in (`type: "oauth"`), scope `identify`. `email` is always null.
 *
 * @example
 * ```ts
 * import Osu from "gatehouse-auth/providers/osu"
 * Osu({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Osu<P extends OsuProfile = OsuProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "osu",
    name: "osu!",
    type: "oauth",
    authorization: { url: "https://osu.ppy.sh/oauth/authorize", params: { scope: "identify" } },
    token: "https://osu.ppy.sh/oauth/token",
    userinfo: "https://osu.ppy.sh/api/v2/me",
    // osu!'s token endpoint reads the client credentials from the body.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      return { id: String(profile.id), name: profile.username, email: null, image: profile.avatar_url ?? null }
    },
    style: { brandColor: "#ff66aa" },
    options,
  }
}

export default Osu

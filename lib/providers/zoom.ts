/** Zoom (OAuth 2) with the `/v2/users/me` endpoint. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The user as `GET /v2/users/me` returns it (common fields). */
export interface ZoomProfile {
  id: string
  first_name?: string
  last_name?: string
  display_name?: string
  email?: string
  pic_url?: string
  account_id?: string
  type?: number
  status?: string
  [field: string]: unknown
}

/**
 * Zoom sign-in (`type: "oauth"`), granular scope `user:read:user` (apps created with classic scopes use `user:read`:
 * pass `authorization: { params: { scope: "user:read" } }`).
 *
 * @example
 * ```ts
 * import Zoom from "gatehouse-auth/providers/zoom"
 * Zoom({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Zoom<P extends ZoomProfile = ZoomProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "zoom",
    name: "Zoom",
    type: "oauth",
    authorization: { url: "https://zoom.us/oauth/authorize", params: { scope: "user:read:user" } },
    token: "https://zoom.us/oauth/token",
    userinfo: "https://api.zoom.us/v2/users/me",
    profile(profile: P): User {
      const fullName = [profile.first_name, profile.last_name].filter(Boolean).join(" ")
      return {
        id: profile.id,
        name: profile.display_name || fullName || null,
        email: profile.email ?? null,
        image: profile.pic_url ?? null,
      }
    },
    style: { brandColor: "#0b5cff" },
    options,
  }
}

export default Zoom

/** Strava (OAuth 2) with the `/api/v3/athlete` endpoint. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The athlete as `GET /api/v3/athlete` returns it (common fields). Strava gives no email address. */
export interface StravaProfile {
  id: number
  username?: string | null
  firstname?: string
  lastname?: string
  /** URL of the 124x124 profile picture. */
  profile?: string
  profile_medium?: string
  city?: string | null
  country?: string | null
  [field: string]: unknown
}

/**
 * Strava sign-in (`type: "oauth"`), scope `read`. `email` is always null.
 *
 * @example
 * ```ts
 * import Strava from "gatehouse-auth/providers/strava"
 * Strava({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Strava<P extends StravaProfile = StravaProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "strava",
    name: "Strava",
    type: "oauth",
    authorization: { url: "https://www.strava.com/oauth/authorize", params: { scope: "read" } },
    token: "https://www.strava.com/oauth/token",
    userinfo: "https://www.strava.com/api/v3/athlete",
    // Strava's token endpoint reads the client credentials from the body.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      const fullName = [profile.firstname, profile.lastname].filter(Boolean).join(" ")
      return { id: String(profile.id), name: fullName || null, email: null, image: profile.profile ?? null }
    },
    style: { brandColor: "#fc4c02" },
    options,
  }
}

export default Strava

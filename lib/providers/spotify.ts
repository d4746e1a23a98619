/** Spotify (OAuth 2) with the Web API `/v1/me` endpoint. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The user as `GET /v1/me` returns it. */
export interface SpotifyProfile {
  id: string
  display_name: string | null
  /** Present with the `user-read-email` scope. */
  email?: string
  images: { url: string; height: number | null; width: number | null }[]
  country?: string
  product?: string
  uri?: string
  [field: string]: unknown
}

/**
 * Spotify sign-in (`type: "oauth"`), scope `user-read-email`.
 *
 * @example
 * ```ts
 * import Spotify from "gatehouse-auth/providers/spotify"
 * Spotify({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Spotify<P extends SpotifyProfile = SpotifyProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "spotify",
    name: "Spotify",
    type: "oauth",
    authorization: { url: "https://accounts.spotify.com/authorize", params: { scope: "user-read-email" } },
    token: "https://accounts.spotify.com/api/token",
    userinfo: "https://api.spotify.com/v1/me",
    profile(profile: P): User {
      return {
        id: profile.id,
        name: profile.display_name ?? null,
        email: profile.email ?? null,
        image: profile.images?.[0]?.url ?? null,
      }
    },
    style: { brandColor: "#1db954" },
    options,
  }
}

export default Spotify

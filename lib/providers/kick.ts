/** Kick (OAuth 2.1: PKCE required, credentials in the body). */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The answer of `GET https://api.kick.com/public/v1/users`: the signed-in user first in `data`. */
export interface KickProfile {
  data: { user_id: number; name: string; email?: string; profile_picture?: string }[]
  message?: string
  [field: string]: unknown
}

/** Options of {@link Kick}. */
export type KickUserConfig<P extends KickProfile = KickProfile> = OAuthUserConfig<P>

/**
 * Kick sign-in (`type: "oauth"`), scope `user:read`, credentials in the body (`client_secret_post`). Kick requires
 * PKCE, which Gatehouse always sends.
 *
 * @example
 * ```ts
 * import Kick from "gatehouse-auth/providers/kick"
 * Kick({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Kick<P extends KickProfile = KickProfile>(options: KickUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "kick",
    name: "Kick",
    type: "oauth",
    authorization: { url: "https://id.kick.com/oauth/authorize", params: { scope: "user:read" } },
    token: "https://id.kick.com/oauth/token",
    userinfo: "https://api.kick.com/public/v1/users",
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      const user = profile.data?.[0]
      if (!user) throw new TypeError("Kick answered no user")
      return {
        id: String(user.user_id),
        name: user.name ?? null,
        email: user.email ?? null,
        image: user.profile_picture ?? null,
      }
    },
    style: { brandColor: "#53fc18", text: "#000000" },
    options,
  }
}

export default Kick

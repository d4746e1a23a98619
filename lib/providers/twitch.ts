/** Twitch (OpenID Connect); the email and picture claims are asked for explicitly. */
import type { User } from "../core/types"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Twitch ID token (with the claims this provider requests). */
export interface TwitchProfile {
  iss: string
  sub: string
  aud: string
  azp?: string
  preferred_username?: string
  email?: string
  email_verified?: boolean
  picture?: string
  updated_at?: string
  iat: number
  exp: number
  [claim: string]: unknown
}

/**
 * Twitch sign-in (`type: "oidc"`), scope `openid user:read:email`. Twitch only puts email and picture in the ID token
 * when the `claims` parameter asks for them, so it does.
 *
 * @example
 * ```ts
 * import Twitch from "gatehouse/providers/twitch"
 * Twitch({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Twitch<P extends TwitchProfile = TwitchProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "twitch",
    name: "Twitch",
    type: "oidc",
    issuer: "https://id.twitch.tv/oauth2",
    authorization: {
      params: {
        scope: "openid user:read:email",
        claims: { id_token: { email: null, email_verified: null, picture: null, preferred_username: null } },
      },
    },
    // Twitch's token endpoint reads the client credentials from the body only.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      return {
        id: profile.sub,
        name: profile.preferred_username ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }
    },
    style: { brandColor: "#9146ff" },
    options,
  }
}

export default Twitch

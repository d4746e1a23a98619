/** Twitch (OpenID Connect); the email and picture claims are asked for explicitly. */
import type { User } from "../models"
import { oidcProvider, standardProfile } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Twitch ID token (with the claims this provider requests). */
export interface TwitchProfile extends OidcStandardClaims {
  aud: string
  azp?: string
  updated_at?: string
}

/**
 * Twitch sign-in (`type: "oidc"`), scope `openid user:read:email`. Twitch only puts email and picture in the ID token
 * when the `claims` parameter asks for them, so it does.
 *
 * @example
 * ```ts
 * import Twitch from "gatehouse-auth/providers/twitch"
 * Twitch({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Twitch<P extends TwitchProfile = TwitchProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return oidcProvider<P>(
    {
      id: "twitch",
      name: "Twitch",
      brandColor: "#9146ff",
      issuer: "https://id.twitch.tv/oauth2",
      authorization: {
        params: {
          scope: "openid user:read:email",
          claims: { id_token: { email: null, email_verified: null, picture: null, preferred_username: null } },
        },
      },
      // Twitch's token endpoint reads the client credentials from the body only.
      client: { token_endpoint_auth_method: "client_secret_post" },
      // The user name is preferred_username; the name claim is not used.
      profile: (profile: P): User => ({ ...standardProfile(profile), name: profile.preferred_username ?? null }),
    },
    options,
  )
}

export default Twitch

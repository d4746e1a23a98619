/** LinkedIn ("Sign In with LinkedIn using OpenID Connect"). */
import type { User } from "../models"
import { oidcProvider, standardProfile } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a LinkedIn ID token. */
export interface LinkedInProfile extends OidcStandardClaims {
  aud: string
  locale?: string | { country: string; language: string }
}

/**
 * LinkedIn sign-in (`type: "oidc"`), scope `openid profile email`.
 *
 * @example
 * ```ts
 * import LinkedIn from "gatehouse-auth/providers/linkedin"
 * LinkedIn({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function LinkedIn<P extends LinkedInProfile = LinkedInProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return oidcProvider<P>(
    {
      id: "linkedin",
      name: "LinkedIn",
      brandColor: "#0a66c2",
      issuer: "https://www.linkedin.com/oauth",
      checks: ["pkce", "state"],
      // LinkedIn's token endpoint takes the client credentials in the body.
      client: { token_endpoint_auth_method: "client_secret_post" },
      // The name claim only: no fallback to preferred_username.
      profile: (profile: P): User => ({ ...standardProfile(profile), name: profile.name ?? null }),
    },
    options,
  )
}

export default LinkedIn

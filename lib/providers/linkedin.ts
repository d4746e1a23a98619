/** LinkedIn ("Sign In with LinkedIn using OpenID Connect"). */
import type { User } from "../core/types"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a LinkedIn ID token. */
export interface LinkedInProfile {
  iss: string
  aud: string
  sub: string
  name?: string
  given_name?: string
  family_name?: string
  picture?: string
  email?: string
  email_verified?: boolean
  locale?: string | { country: string; language: string }
  iat: number
  exp: number
  [claim: string]: unknown
}

/**
 * LinkedIn sign-in (`type: "oidc"`), scope `openid profile email`.
 *
 * @example
 * ```ts
 * import LinkedIn from "gatehouse/providers/linkedin"
 * LinkedIn({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function LinkedIn<P extends LinkedInProfile = LinkedInProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "linkedin",
    name: "LinkedIn",
    type: "oidc",
    issuer: "https://www.linkedin.com/oauth",
    authorization: { params: { scope: "openid profile email" } },
    // LinkedIn's token endpoint takes the client credentials in the body.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      return {
        id: profile.sub,
        name: profile.name ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }
    },
    style: { brandColor: "#0a66c2" },
    options,
  }
}

export default LinkedIn

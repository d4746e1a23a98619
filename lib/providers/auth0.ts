/** Auth0 (OpenID Connect); the issuer is your Auth0 tenant domain, given in the options. */
import type { User } from "../models"
import { oidcProvider, standardProfile } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Auth0 ID token (common ones). */
export interface Auth0Profile extends OidcStandardClaims {
  updated_at?: string
}

/**
 * Auth0 sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_AUTH0_ISSUER`).
 *
 * @example
 * ```ts
 * import Auth0 from "gatehouse-auth/providers/auth0"
 * Auth0({ issuer: "https://example.eu.auth0.com/", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Auth0<P extends Auth0Profile = Auth0Profile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return oidcProvider<P>(
    {
      id: "auth0",
      name: "Auth0",
      brandColor: "#eb5424",
      // Auth0 names a user without a name by the nickname, not preferred_username.
      profile: (profile: P): User => ({ ...standardProfile(profile), name: profile.name ?? profile.nickname ?? null }),
    },
    options,
  )
}

export default Auth0

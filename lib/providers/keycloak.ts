/** Keycloak (OpenID Connect); the issuer is your Keycloak realm, given in the options. */
import type { User } from "../core/types"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Keycloak ID token (common ones). */
export interface KeycloakProfile {
  iss: string
  sub: string
  aud: string | string[]
  name?: string
  email?: string
  email_verified?: boolean
  picture?: string
  preferred_username?: string
  given_name?: string
  family_name?: string
  azp?: string
  iat: number
  exp: number
  [claim: string]: unknown
}

/**
 * Keycloak sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_KEYCLOAK_ISSUER`).
 *
 * @example
 * ```ts
 * import Keycloak from "gatehouse/providers/keycloak"
 * Keycloak({ issuer: "https://keycloak.example.com/realms/myrealm", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Keycloak<P extends KeycloakProfile = KeycloakProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "keycloak",
    name: "Keycloak",
    type: "oidc",
    authorization: { params: { scope: "openid profile email" } },
    profile(profile: P): User {
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }
    },
    style: { brandColor: "#4d4d4d" },
    options,
  }
}

export default Keycloak

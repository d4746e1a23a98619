/** Keycloak (OpenID Connect); the issuer is your Keycloak realm, given in the options. */
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Keycloak ID token (common ones). */
export interface KeycloakProfile extends OidcStandardClaims {
  azp?: string
}

/**
 * Keycloak sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_KEYCLOAK_ISSUER`).
 *
 * @example
 * ```ts
 * import Keycloak from "gatehouse-auth/providers/keycloak"
 * Keycloak({ issuer: "https://keycloak.example.com/realms/myrealm", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Keycloak<P extends KeycloakProfile = KeycloakProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return oidcProvider<P>({ id: "keycloak", name: "Keycloak", brandColor: "#4d4d4d" }, options)
}

export default Keycloak

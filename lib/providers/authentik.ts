/** authentik (OpenID Connect); the issuer is your authentik application, given in the options. */
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of an authentik ID token (common ones). */
export interface AuthentikProfile extends OidcStandardClaims {
  groups?: string[]
}

/**
 * authentik sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_AUTHENTIK_ISSUER`).
 *
 * @example
 * ```ts
 * import Authentik from "gatehouse-auth/providers/authentik"
 * Authentik({ issuer: "https://auth.example.com/application/o/my-app/", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Authentik<P extends AuthentikProfile = AuthentikProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return oidcProvider<P>({ id: "authentik", name: "authentik", brandColor: "#fd4b2d" }, options)
}

export default Authentik

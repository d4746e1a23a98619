/** Descope (OpenID Connect); the issuer is `https://api.descope.com/<project id>`. */
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Descope ID token (common ones). */
export interface DescopeProfile extends OidcStandardClaims {
  phone_number?: string
  phone_number_verified?: boolean
}

/** Options of {@link Descope}. */
export type DescopeUserConfig<P extends DescopeProfile = DescopeProfile> = OAuthUserConfig<P>

/**
 * Descope sign-in (`type: "oidc"`), scope `openid profile email`, with `state`. The client id is the Descope project
 * id; the issuer defaults to `https://api.descope.com/<clientId>` when the factory is given `clientId` (else set
 * `issuer` or `AUTH_DESCOPE_ISSUER`).
 *
 * @example
 * ```ts
 * import Descope from "gatehouse-auth/providers/descope"
 * Descope({ clientId: "<project id>", clientSecret: "<access key>" })
 * ```
 */
export function Descope<P extends DescopeProfile = DescopeProfile>(options: DescopeUserConfig<P> = {}): OAuthConfig<P> {
  const issuer =
    options.issuer ?? (options.clientId ? `https://api.descope.com/${encodeURIComponent(options.clientId)}` : undefined)
  return oidcProvider<P>(
    { id: "descope", name: "Descope", brandColor: "#1c1c23", text: "#ffffff", checks: ["pkce", "state"] },
    issuer === undefined ? options : { ...options, issuer },
  )
}

export default Descope

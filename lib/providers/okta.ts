/** Okta (OpenID Connect); the issuer is your Okta org or authorization server, given in the options. */
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Okta ID token (common ones). */
export interface OktaProfile extends OidcStandardClaims {
  locale?: string
  zoneinfo?: string
}

/**
 * Okta sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_OKTA_ISSUER`).
 *
 * @example
 * ```ts
 * import Okta from "gatehouse-auth/providers/okta"
 * Okta({ issuer: "https://dev-123456.okta.com/oauth2/default", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Okta<P extends OktaProfile = OktaProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return oidcProvider<P>({ id: "okta", name: "Okta", brandColor: "#007dc1", checks: ["pkce", "state"] }, options)
}

export default Okta

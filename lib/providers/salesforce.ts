/** Salesforce (OpenID Connect); production by default, a sandbox or My Domain through `issuer`. */
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Salesforce ID token (common ones). */
export interface SalesforceProfile extends OidcStandardClaims {
  /** The identity URL, `https://login.salesforce.com/id/<org id>/<user id>`. */
  sub: string
  aud: string
  user_id?: string
  organization_id?: string
}

/**
 * Salesforce sign-in (`type: "oidc"`), issuer `https://login.salesforce.com` (use `https://test.salesforce.com` for a
 * sandbox), scope `openid profile email`.
 *
 * @example
 * ```ts
 * import Salesforce from "gatehouse-auth/providers/salesforce"
 * Salesforce({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Salesforce<P extends SalesforceProfile = SalesforceProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return oidcProvider<P>(
    {
      id: "salesforce",
      name: "Salesforce",
      brandColor: "#00a1e0",
      issuer: "https://login.salesforce.com",
      checks: ["pkce", "state", "nonce"],
    },
    options,
  )
}

export default Salesforce

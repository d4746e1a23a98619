/** Azure AD B2C (OpenID Connect); the issuer names your tenant and user flow. */
import type { User } from "../models"
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of an Azure AD B2C ID token (common ones). */
export interface AzureADB2CProfile extends OidcStandardClaims {
  /** The addresses of the account; the first one is the user's email. */
  emails?: string[]
  oid?: string
  tfp?: string
}

/** Options of {@link AzureADB2C}. */
export type AzureADB2CUserConfig<P extends AzureADB2CProfile = AzureADB2CProfile> = OAuthUserConfig<P>

/**
 * Azure AD B2C sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_AZURE_AD_B2C_ISSUER`),
 * e.g. `https://<tenant>.b2clogin.com/<tenant id>/v2.0/` for your user flow. The email is the first of `emails`.
 *
 * @example
 * ```ts
 * import AzureADB2C from "gatehouse-auth/providers/azure-ad-b2c"
 * AzureADB2C({ issuer: "https://contoso.b2clogin.com/<tenant id>/v2.0/", clientId: "...", clientSecret: "..." })
 * ```
 */
export function AzureADB2C<P extends AzureADB2CProfile = AzureADB2CProfile>(
  options: AzureADB2CUserConfig<P> = {},
): OAuthConfig<P> {
  return oidcProvider<P>(
    {
      id: "azure-ad-b2c",
      name: "Azure AD B2C",
      brandColor: "#0072c6",
      text: "#ffffff",
      profile: (profile): User => ({
        id: profile.sub,
        name: profile.name ?? profile.preferred_username ?? null,
        email: profile.emails?.[0] ?? null,
        image: null,
      }),
    },
    options,
  )
}

export default AzureADB2C

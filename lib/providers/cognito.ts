/** Amazon Cognito (OpenID Connect); the issuer is your Amazon Cognito user pool, given in the options. */
import type { User } from "../models"
import { oidcProvider, standardProfile } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of an Amazon Cognito ID token (common ones). */
export interface CognitoProfile extends OidcStandardClaims {
  "cognito:username"?: string
  "cognito:groups"?: string[]
  token_use?: "id"
}

/**
 * Amazon Cognito sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_COGNITO_ISSUER`).
 *
 * @example
 * ```ts
 * import Cognito from "gatehouse-auth/providers/cognito"
 * Cognito({ issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Cognito<P extends CognitoProfile = CognitoProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return oidcProvider<P>(
    {
      id: "cognito",
      name: "Amazon Cognito",
      brandColor: "#dd344c",
      // Cognito's user name is in its own claim, not preferred_username.
      profile: (profile: P): User => ({
        ...standardProfile(profile),
        name: profile.name ?? profile["cognito:username"] ?? null,
      }),
    },
    options,
  )
}

export default Cognito

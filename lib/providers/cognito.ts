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

/** Options of {@link Cognito}: the usual OIDC options plus the user pool's domain. */
export type CognitoUserConfig<P extends CognitoProfile = CognitoProfile> = OAuthUserConfig<P> & {
  /**
   * The user pool's managed login (hosted UI) domain, e.g. `https://myapp.auth.eu-west-1.amazoncognito.com` or a
   * custom domain. Needed for federated logout only: Cognito's discovery names no end-session endpoint, and its
   * `/logout` lives on this domain, not on the issuer.
   */
  domain?: string | undefined
}

/**
 * Amazon Cognito sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_COGNITO_ISSUER`).
 * With `domain`, `logout.rpInitiated: true` signs out at Cognito too: `GET <domain>/logout?client_id=…&logout_uri=…`
 * (Cognito's own endpoint, not RP-Initiated Logout 1.0: no `id_token_hint`, and `logout_uri` must be one of the app
 * client's allowed sign-out URLs).
 *
 * @example
 * ```ts
 * import Cognito from "gatehouse-auth/providers/cognito"
 * Cognito({ issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Cognito<P extends CognitoProfile = CognitoProfile>(options: CognitoUserConfig<P> = {}): OAuthConfig<P> {
  const { domain } = options
  return oidcProvider<P>(
    {
      id: "cognito",
      name: "Amazon Cognito",
      brandColor: "#dd344c",
      // Cognito's user name is in its own claim, not preferred_username.
      // The standard mapping, as Auth.js's: `cognito:username` is a login name, not the user's name.
      profile: (profile: P): User => standardProfile(profile),
      ...(domain
        ? {
            logout: {
              endSessionEndpoint: `${domain.replace(/\/+$/, "")}/logout`,
              postLogoutRedirectParam: "logout_uri",
              idTokenHint: false,
            },
          }
        : {}),
    },
    options,
  )
}

export default Cognito

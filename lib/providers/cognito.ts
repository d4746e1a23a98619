/** Amazon Cognito (OpenID Connect); the issuer is your Amazon Cognito user pool, given in the options. */
import type { User } from "../core/types"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of an Amazon Cognito ID token (common ones). */
export interface CognitoProfile {
  iss: string
  sub: string
  aud: string | string[]
  name?: string
  email?: string
  email_verified?: boolean
  picture?: string
  "cognito:username"?: string
  "cognito:groups"?: string[]
  token_use?: "id"
  iat: number
  exp: number
  [claim: string]: unknown
}

/**
 * Amazon Cognito sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_COGNITO_ISSUER`).
 *
 * @example
 * ```ts
 * import Cognito from "gatehouse/providers/cognito"
 * Cognito({ issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Cognito<P extends CognitoProfile = CognitoProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "cognito",
    name: "Amazon Cognito",
    type: "oidc",
    authorization: { params: { scope: "openid profile email" } },
    profile(profile: P): User {
      return {
        id: profile.sub,
        name: profile.name ?? profile["cognito:username"] ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }
    },
    style: { brandColor: "#dd344c" },
    options,
  }
}

export default Cognito

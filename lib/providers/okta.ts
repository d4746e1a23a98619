/** Okta (OpenID Connect); the issuer is your Okta org or authorization server, given in the options. */
import type { User } from "../core/types"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Okta ID token (common ones). */
export interface OktaProfile {
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
  locale?: string
  zoneinfo?: string
  iat: number
  exp: number
  [claim: string]: unknown
}

/**
 * Okta sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_OKTA_ISSUER`).
 *
 * @example
 * ```ts
 * import Okta from "gatehouse/providers/okta"
 * Okta({ issuer: "https://dev-123456.okta.com/oauth2/default", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Okta<P extends OktaProfile = OktaProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "okta",
    name: "Okta",
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
    style: { brandColor: "#007dc1" },
    options,
  }
}

export default Okta

/** Auth0 (OpenID Connect); the issuer is your Auth0 tenant domain, given in the options. */
import type { User } from "../core/types"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Auth0 ID token (common ones). */
export interface Auth0Profile {
  iss: string
  sub: string
  aud: string | string[]
  name?: string
  email?: string
  email_verified?: boolean
  picture?: string
  nickname?: string
  given_name?: string
  family_name?: string
  updated_at?: string
  iat: number
  exp: number
  [claim: string]: unknown
}

/**
 * Auth0 sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_AUTH0_ISSUER`).
 *
 * @example
 * ```ts
 * import Auth0 from "gatehouse/providers/auth0"
 * Auth0({ issuer: "https://example.eu.auth0.com/", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Auth0<P extends Auth0Profile = Auth0Profile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "auth0",
    name: "Auth0",
    type: "oidc",
    authorization: { params: { scope: "openid profile email" } },
    profile(profile: P): User {
      return {
        id: profile.sub,
        name: profile.name ?? profile.nickname ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }
    },
    style: { brandColor: "#eb5424" },
    options,
  }
}

export default Auth0

/** authentik (OpenID Connect); the issuer is your authentik application, given in the options. */
import type { User } from "../core/types"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of an authentik ID token (common ones). */
export interface AuthentikProfile {
  iss: string
  sub: string
  aud: string | string[]
  name?: string
  email?: string
  email_verified?: boolean
  picture?: string
  preferred_username?: string
  nickname?: string
  given_name?: string
  groups?: string[]
  iat: number
  exp: number
  [claim: string]: unknown
}

/**
 * authentik sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_AUTHENTIK_ISSUER`).
 *
 * @example
 * ```ts
 * import Authentik from "gatehouse/providers/authentik"
 * Authentik({ issuer: "https://auth.example.com/application/o/my-app/", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Authentik<P extends AuthentikProfile = AuthentikProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "authentik",
    name: "authentik",
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
    style: { brandColor: "#fd4b2d" },
    options,
  }
}

export default Authentik

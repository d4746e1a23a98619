/** ZITADEL (OpenID Connect); the issuer is your ZITADEL instance, given in the options. */
import type { User } from "../core/types"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a ZITADEL ID token (common ones). */
export interface ZitadelProfile {
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
  iat: number
  exp: number
  [claim: string]: unknown
}

/**
 * ZITADEL sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_ZITADEL_ISSUER`).
 *
 * @example
 * ```ts
 * import Zitadel from "gatehouse/providers/zitadel"
 * Zitadel({ issuer: "https://my-instance.zitadel.cloud", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Zitadel<P extends ZitadelProfile = ZitadelProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "zitadel",
    name: "ZITADEL",
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
    style: { brandColor: "#ff8700" },
    options,
  }
}

export default Zitadel

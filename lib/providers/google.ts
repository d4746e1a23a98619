/** Google (OpenID Connect): everything is discovered from `https://accounts.google.com`. */
import type { User } from "../core/types"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Google ID token. */
export interface GoogleProfile {
  iss: string
  aud: string
  azp?: string
  sub: string
  email?: string
  email_verified?: boolean
  /** Google Workspace domain of the account, when there is one. */
  hd?: string
  name?: string
  given_name?: string
  family_name?: string
  picture?: string
  locale?: string
  iat: number
  exp: number
  [claim: string]: unknown
}

/**
 * Google sign-in (`type: "oidc"`), default scope `openid profile email`.
 *
 * @example
 * ```ts
 * import Google from "gatehouse/providers/google"
 * Google({ clientId: process.env.AUTH_GOOGLE_ID, clientSecret: process.env.AUTH_GOOGLE_SECRET })
 * ```
 */
export function Google<P extends GoogleProfile = GoogleProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "google",
    name: "Google",
    type: "oidc",
    issuer: "https://accounts.google.com",
    profile(profile: P): User {
      return {
        id: profile.sub,
        name: profile.name ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }
    },
    style: { brandColor: "#1a73e8" },
    options,
  }
}

export default Google

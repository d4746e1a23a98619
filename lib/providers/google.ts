/** Google (OpenID Connect): everything is discovered from `https://accounts.google.com`. */
import type { User } from "../models"
import { standardProfile } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Google ID token. */
export interface GoogleProfile extends OidcStandardClaims {
  aud: string
  azp?: string
  /** Google Workspace domain of the account, when there is one. */
  hd?: string
  locale?: string
}

/**
 * Google sign-in (`type: "oidc"`), default scope `openid profile email`.
 *
 * @example
 * ```ts
 * import Google from "gatehouse-auth/providers/google"
 * Google({ clientId: process.env.AUTH_GOOGLE_ID, clientSecret: process.env.AUTH_GOOGLE_SECRET })
 * ```
 */
export function Google<P extends GoogleProfile = GoogleProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  // No `authorization` default: the core then asks for its default scope, `openid profile email`.
  return {
    id: "google",
    name: "Google",
    type: "oidc",
    issuer: "https://accounts.google.com",
    profile(profile: P): User {
      // The name claim only: no fallback to preferred_username.
      return { ...standardProfile(profile), name: profile.name ?? null }
    },
    // Google's sign-in button guidelines: white with dark text; dark theme #131314 with light text.
    style: { brandColor: "#ffffff", text: "#1f1f1f", bgDark: "#131314", textDark: "#e3e3e3" },
    options,
  }
}

export default Google

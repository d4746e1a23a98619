/** Sign in with Vercel (OAuth 2 with an OpenID Connect userinfo endpoint). */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The answer of `GET https://api.vercel.com/login/oauth/userinfo`. */
export interface VercelProfile {
  sub: string
  name?: string
  preferred_username?: string
  email?: string
  email_verified?: boolean
  picture?: string
  [field: string]: unknown
}

/** Options of {@link Vercel}. */
export type VercelUserConfig<P extends VercelProfile = VercelProfile> = OAuthUserConfig<P>

/**
 * Vercel sign-in (`type: "oauth"`), scope `openid email profile`.
 *
 * @example
 * ```ts
 * import Vercel from "gatehouse-auth/providers/vercel"
 * Vercel({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Vercel<P extends VercelProfile = VercelProfile>(options: VercelUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "vercel",
    name: "Vercel",
    type: "oauth",
    authorization: { url: "https://vercel.com/oauth/authorize", params: { scope: "openid email profile" } },
    token: "https://api.vercel.com/login/oauth/token",
    userinfo: "https://api.vercel.com/login/oauth/userinfo",
    profile(profile: P): User {
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }
    },
    style: { brandColor: "#000000", text: "#ffffff" },
    options,
  }
}

export default Vercel

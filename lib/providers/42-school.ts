/** 42 School intra (OAuth 2). */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The user as `GET https://api.intra.42.fr/v2/me` returns it (the fields Gatehouse reads, plus common ones). */
export interface FortyTwoProfile {
  id: number
  email: string
  login: string
  first_name?: string
  last_name?: string
  usual_full_name: string | null
  displayname?: string
  image: { link: string | null; versions?: Record<string, string | null> }
  [field: string]: unknown
}

/** Options of {@link FortyTwo}. */
export type FortyTwoUserConfig<P extends FortyTwoProfile = FortyTwoProfile> = OAuthUserConfig<P>

/**
 * 42 School sign-in (`type: "oauth"`), scope `public`. Environment variables: `AUTH_42_SCHOOL_ID`,
 * `AUTH_42_SCHOOL_SECRET`.
 *
 * @example
 * ```ts
 * import FortyTwo from "gatehouse-auth/providers/42-school"
 * FortyTwo({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function FortyTwo<P extends FortyTwoProfile = FortyTwoProfile>(
  options: FortyTwoUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "42-school",
    name: "42 School",
    type: "oauth",
    authorization: { url: "https://api.intra.42.fr/oauth/authorize", params: { scope: "public" } },
    token: "https://api.intra.42.fr/oauth/token",
    userinfo: "https://api.intra.42.fr/v2/me",
    profile(profile: P): User {
      return {
        id: String(profile.id),
        name: profile.usual_full_name ?? null,
        email: profile.email ?? null,
        image: profile.image?.link ?? null,
      }
    },
    style: { brandColor: "#000000", text: "#ffffff" },
    options,
  }
}

export default FortyTwo

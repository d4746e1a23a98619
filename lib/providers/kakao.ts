/** Kakao (OAuth 2): the profile is nested under `kakao_account`; the consent items come from the Kakao console. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The user as `GET https://kapi.kakao.com/v2/user/me` returns it (the fields Gatehouse reads, plus common ones). */
export interface KakaoProfile {
  /** A number; mapped to a string. */
  id: number
  connected_at?: string
  properties?: Record<string, string>
  kakao_account?: {
    profile?: {
      nickname?: string
      profile_image_url?: string
      thumbnail_image_url?: string
      is_default_image?: boolean
    }
    email?: string
    is_email_valid?: boolean
    is_email_verified?: boolean
    [field: string]: unknown
  }
  [field: string]: unknown
}

/** Options of {@link Kakao}. */
export type KakaoUserConfig<P extends KakaoProfile = KakaoProfile> = OAuthUserConfig<P>

/**
 * Kakao sign-in (`type: "oauth"`). The scope is empty by default: the consent items (nickname, profile image, email)
 * are chosen in the Kakao console. The client secret goes in the request body (`client_secret_post`).
 *
 * @example
 * ```ts
 * import Kakao from "gatehouse-auth/providers/kakao"
 * Kakao({ clientId: "<REST API key>", clientSecret: "<client secret>" })
 * ```
 */
export function Kakao<P extends KakaoProfile = KakaoProfile>(options: KakaoUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "kakao",
    name: "Kakao",
    type: "oauth",
    authorization: { url: "https://kauth.kakao.com/oauth/authorize", params: { scope: "" } },
    token: "https://kauth.kakao.com/oauth/token",
    userinfo: "https://kapi.kakao.com/v2/user/me",
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      const account = profile.kakao_account
      return {
        id: String(profile.id),
        name: account?.profile?.nickname ?? null,
        email: account?.email ?? null,
        image: account?.profile?.profile_image_url ?? null,
      }
    },
    style: { brandColor: "#fee500", text: "#191919" },
    options,
  }
}

export default Kakao

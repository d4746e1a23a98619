/** Naver (OAuth 2): the profile is under `response`; errors come as HTTP 200 with a `resultcode` other than "00". */
import { OAuthProfileParseError } from "../errors"
import type { Profile, User } from "../models"
import type { OAuthConfig, OAuthUserConfig, TokenSet } from "./types"

/** The answer of `GET https://openapi.naver.com/v1/nid/me`. */
export interface NaverProfile {
  resultcode: string
  message: string
  response: {
    id: string
    nickname?: string
    name?: string
    email?: string
    gender?: "F" | "M" | "U"
    age?: string
    birthday?: string
    profile_image?: string
    birthyear?: string
    mobile?: string
    [field: string]: unknown
  }
  [field: string]: unknown
}

/** Options of {@link Naver}. */
export type NaverUserConfig<P extends NaverProfile = NaverProfile> = OAuthUserConfig<P>

const profileUrl = "https://openapi.naver.com/v1/nid/me"

/**
 * Naver sign-in (`type: "oauth"`), scope `openid profile email` (Auth.js's default; Naver's consent items are set in
 * its console). Naver answers errors with HTTP 200 and a `resultcode` other than `"00"`: the userinfo request turns
 * that into `OAuthProfileParseError`, so a failed lookup never becomes a profile.
 *
 * @example
 * ```ts
 * import Naver from "gatehouse-auth/providers/naver"
 * Naver({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Naver<P extends NaverProfile = NaverProfile>(options: NaverUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "naver",
    name: "Naver",
    type: "oauth",
    authorization: "https://nid.naver.com/oauth2.0/authorize",
    token: "https://nid.naver.com/oauth2.0/token",
    userinfo: { url: profileUrl, request: ({ tokens, fetch }) => fetchNaverProfile(tokens, fetch) },
    profile(profile: P): User {
      const user = profile.response
      return {
        id: user.id,
        name: user.nickname ?? null,
        email: user.email ?? null,
        image: user.profile_image ?? null,
      }
    },
    style: { brandColor: "#03c75a", text: "#ffffff" },
    options,
  }
}

async function fetchNaverProfile(tokens: TokenSet, fetchImpl: typeof fetch): Promise<Profile> {
  const response = await fetchImpl(profileUrl, { headers: { Authorization: `Bearer ${tokens.access_token}` } })
  const body = (await response.json().catch(() => null)) as Record<string, unknown> | null
  if (!response.ok || !body || body.resultcode !== "00" || typeof body.response !== "object" || !body.response) {
    throw new OAuthProfileParseError("Naver profile request failed", {
      cause: { provider: "naver", status: response.status, resultcode: body?.resultcode },
    })
  }
  return body
}

export default Naver

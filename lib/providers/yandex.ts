/** Yandex ID (OAuth 2); the user info endpoint takes the token with the `OAuth` scheme, hence a custom request. */
import type { Profile, User } from "../models"
import type { OAuthConfig, OAuthUserConfig, TokenSet } from "./types"

/** The user as `GET https://login.yandex.ru/info?format=json` returns it (fields depend on the granted scopes). */
export interface YandexProfile {
  id: string
  login: string
  client_id?: string
  psuid?: string
  display_name?: string
  real_name?: string
  first_name?: string
  last_name?: string
  default_email?: string
  emails?: string[]
  default_avatar_id?: string
  is_avatar_empty?: boolean
  [field: string]: unknown
}

const infoUrl = "https://login.yandex.ru/info?format=json"

/**
 * Yandex sign-in (`type: "oauth"`), scope `login:info login:email login:avatar`.
 *
 * @example
 * ```ts
 * import Yandex from "gatehouse-auth/providers/yandex"
 * Yandex({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Yandex<P extends YandexProfile = YandexProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "yandex",
    name: "Yandex",
    type: "oauth",
    authorization: {
      url: "https://oauth.yandex.ru/authorize",
      params: { scope: "login:info login:email login:avatar" },
    },
    token: "https://oauth.yandex.ru/token",
    userinfo: {
      url: infoUrl,
      request: ({ tokens, fetch }) => fetchYandexUser(tokens, fetch),
    },
    profile(profile: P): User {
      const avatar = profile.default_avatar_id && !profile.is_avatar_empty ? profile.default_avatar_id : undefined
      return {
        id: profile.id,
        name: profile.display_name ?? profile.real_name ?? profile.login,
        email: profile.default_email ?? profile.emails?.[0] ?? null,
        image: avatar ? `https://avatars.yandex.net/get-yapic/${avatar}/islands-200` : null,
      }
    },
    style: { brandColor: "#fc3f1d" },
    options,
  }
}

async function fetchYandexUser(tokens: TokenSet, fetchImpl: typeof fetch): Promise<Profile> {
  const response = await fetchImpl(infoUrl, { headers: { Authorization: `OAuth ${tokens.access_token}` } })
  if (!response.ok) throw new Error("Yandex user request failed", { cause: { status: response.status } })
  return (await response.json()) as Record<string, unknown>
}

export default Yandex

/** VK (OAuth 2): every endpoint names the API version; the email arrives in the token response. */
import type { Profile, User } from "../models"
import type { OAuthConfig, OAuthUserConfig, TokenSet } from "./types"

/** One user of `users.get` (the fields Gatehouse reads, plus common ones), with the email copied in. */
export interface VKProfile {
  id: number
  first_name?: string
  last_name?: string
  photo_100?: string
  screen_name?: string
  /** Copied from the token response, where VK puts it. */
  email?: string | null
  [field: string]: unknown
}

/** Options of {@link VK}: the usual OAuth options plus the API version. */
export type VKUserConfig<P extends VKProfile = VKProfile> = OAuthUserConfig<P> & {
  /** The VK API version put on every URL (`v=`). Default `"5.131"`. */
  apiVersion?: string
}

/** The API version of every URL unless `apiVersion` says otherwise. */
const DEFAULT_API_VERSION = "5.131"

/**
 * VK sign-in (`type: "oauth"`), scope `email`, credentials in the body (`client_secret_post`). VK returns the email in
 * the token response rather than from `users.get`, so the userinfo request copies `tokens.email` into the profile.
 *
 * @example
 * ```ts
 * import VK from "gatehouse-auth/providers/vk"
 * VK({ clientId: "...", clientSecret: "...", apiVersion: "5.199" })
 * ```
 */
export function VK<P extends VKProfile = VKProfile>(options: VKUserConfig<P> = {}): OAuthConfig<P> {
  const { apiVersion = DEFAULT_API_VERSION, ...rest } = options
  const v = encodeURIComponent(apiVersion)
  const userinfoUrl = `https://api.vk.com/method/users.get?fields=photo_100&v=${v}`
  return {
    id: "vk",
    name: "VK",
    type: "oauth",
    authorization: `https://oauth.vk.com/authorize?scope=email&v=${v}`,
    token: `https://oauth.vk.com/access_token?v=${v}`,
    userinfo: { url: userinfoUrl, request: ({ tokens, fetch }) => fetchVKUser(userinfoUrl, tokens, fetch) },
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      const name = [profile.first_name, profile.last_name].filter(Boolean).join(" ")
      return {
        id: String(profile.id),
        name: name || null,
        email: profile.email ?? null,
        image: profile.photo_100 ?? null,
      }
    },
    style: { brandColor: "#0077ff", text: "#ffffff" },
    options: rest as OAuthUserConfig<P>,
  }
}

async function fetchVKUser(url: string, tokens: TokenSet, fetchImpl: typeof fetch): Promise<Profile> {
  const response = await fetchImpl(url, { headers: { Authorization: `Bearer ${tokens.access_token}` } })
  if (!response.ok) throw new Error("VK users.get request failed", { cause: { status: response.status } })
  const body = (await response.json()) as { response?: Record<string, unknown>[] }
  const user = Array.isArray(body.response) ? body.response[0] : undefined
  if (!user || typeof user !== "object") throw new Error("VK users.get answered no user")
  return { ...user, email: typeof tokens.email === "string" && tokens.email ? tokens.email : null }
}

export default VK

/** HubSpot (OAuth 2): the user comes from the access-token information endpoint. */
import type { Profile, User } from "../models"
import type { OAuthConfig, OAuthUserConfig, TokenSet } from "./types"

/** The answer of `GET https://api.hubapi.com/oauth/v1/access-tokens/<token>`. */
export interface HubSpotProfile {
  /** The user's email address, which HubSpot also uses as the user name. */
  user: string
  user_id: number
  hub_domain?: string
  hub_id?: number
  app_id?: number
  scopes?: string[]
  token_type?: string
  expires_in?: number
  [field: string]: unknown
}

/** Options of {@link HubSpot}. */
export type HubSpotUserConfig<P extends HubSpotProfile = HubSpotProfile> = OAuthUserConfig<P>

const TOKEN_INFO_URL = "https://api.hubapi.com/oauth/v1/access-tokens"

/** HubSpot's token information endpoint takes the token in its path: HubSpot's API, not a Gatehouse choice. */
async function fetchHubSpotUser(tokens: TokenSet, fetchImpl: typeof fetch): Promise<Profile> {
  const response = await fetchImpl(`${TOKEN_INFO_URL}/${encodeURIComponent(String(tokens.access_token))}`, {
    headers: { Accept: "application/json" },
  })
  if (!response.ok) throw new Error("HubSpot token information request failed", { cause: { status: response.status } })
  return (await response.json()) as Profile
}

/**
 * HubSpot sign-in (`type: "oauth"`), scope `oauth`, credentials in the body (`client_secret_post`). The name and the
 * email are both HubSpot's `user` field.
 *
 * @example
 * ```ts
 * import HubSpot from "gatehouse-auth/providers/hubspot"
 * HubSpot({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function HubSpot<P extends HubSpotProfile = HubSpotProfile>(options: HubSpotUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "hubspot",
    name: "HubSpot",
    type: "oauth",
    authorization: { url: "https://app.hubspot.com/oauth/authorize", params: { scope: "oauth" } },
    token: "https://api.hubapi.com/oauth/v1/token",
    userinfo: { url: TOKEN_INFO_URL, request: ({ tokens, fetch }) => fetchHubSpotUser(tokens, fetch) },
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      return { id: String(profile.user_id), name: profile.user ?? null, email: profile.user ?? null, image: null }
    },
    style: { brandColor: "#ff7a59", text: "#ffffff" },
    options,
  }
}

export default HubSpot

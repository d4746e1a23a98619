/** Atlassian (OAuth 2.0 3LO) with the `api.atlassian.com/me` endpoint. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The user as `GET https://api.atlassian.com/me` returns it. */
export interface AtlassianProfile {
  account_id: string
  account_type?: string
  account_status?: string
  email?: string
  name?: string
  nickname?: string
  picture?: string
  zoneinfo?: string
  locale?: string
  [field: string]: unknown
}

/**
 * Atlassian account sign-in (`type: "oauth"`), scope `read:me`, audience `api.atlassian.com`.
 *
 * @example
 * ```ts
 * import Atlassian from "gatehouse-auth/providers/atlassian"
 * Atlassian({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Atlassian<P extends AtlassianProfile = AtlassianProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "atlassian",
    name: "Atlassian",
    type: "oauth",
    authorization: {
      url: "https://auth.atlassian.com/authorize",
      params: { scope: "read:me", audience: "api.atlassian.com", prompt: "consent" },
    },
    token: "https://auth.atlassian.com/oauth/token",
    userinfo: "https://api.atlassian.com/me",
    checks: ["pkce", "state"],
    // Atlassian's token endpoint reads the client credentials from the body.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      return {
        id: profile.account_id,
        name: profile.name ?? profile.nickname ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }
    },
    style: { brandColor: "#0052cc" },
    options,
  }
}

export default Atlassian

/** Patreon (OAuth 2) with the API v2 `identity` endpoint. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The JSON:API document `GET /api/oauth2/v2/identity?fields[user]=email,full_name,image_url` returns. */
export interface PatreonProfile {
  data: {
    id: string
    type: "user"
    attributes: { email?: string; full_name?: string; image_url?: string; [attribute: string]: unknown }
  }
  [field: string]: unknown
}

/**
 * Patreon sign-in (`type: "oauth"`), scope `identity identity[email]`.
 *
 * @example
 * ```ts
 * import Patreon from "gatehouse-auth/providers/patreon"
 * Patreon({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Patreon<P extends PatreonProfile = PatreonProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "patreon",
    name: "Patreon",
    type: "oauth",
    authorization: { url: "https://www.patreon.com/oauth2/authorize", params: { scope: "identity identity[email]" } },
    token: "https://www.patreon.com/api/oauth2/token",
    userinfo: {
      url: "https://www.patreon.com/api/oauth2/v2/identity",
      params: { "fields[user]": "email,full_name,image_url" },
    },
    // Patreon's token endpoint reads the client credentials from the body.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile({ data }: P): User {
      return {
        id: data.id,
        name: data.attributes?.full_name ?? null,
        email: data.attributes?.email ?? null,
        image: data.attributes?.image_url ?? null,
      }
    },
    style: { brandColor: "#000000", text: "#ffffff" },
    options,
  }
}

export default Patreon

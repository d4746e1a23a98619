/** Notion (public integration OAuth); the user is read from the `owner` of the token response. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig, TokenSet } from "./types"

/** The Notion user who authorized the integration: `owner.user` of the token response. */
export interface NotionProfile {
  object: "user"
  id: string
  type?: "person"
  name?: string | null
  avatar_url?: string | null
  person?: { email?: string }
  [field: string]: unknown
}

/**
 * Notion sign-in (`type: "oauth"`, `owner=user`). Notion has no userinfo endpoint for the authorizing person: its token
 * response carries `owner.user`, which becomes the profile. Workspace fields stay on the account.
 *
 * @example
 * ```ts
 * import Notion from "gatehouse-auth/providers/notion"
 * Notion({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Notion<P extends NotionProfile = NotionProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "notion",
    name: "Notion",
    type: "oauth",
    authorization: { url: "https://api.notion.com/v1/oauth/authorize", params: { owner: "user" } },
    token: "https://api.notion.com/v1/oauth/token",
    userinfo: { url: "https://api.notion.com/v1/users", request: ({ tokens }) => ownerUser(tokens) },
    // Notion's token endpoint requires HTTP Basic client authentication.
    client: { token_endpoint_auth_method: "client_secret_basic" },
    profile(profile: P): User {
      return {
        id: profile.id,
        name: profile.name ?? null,
        email: profile.person?.email ?? null,
        image: profile.avatar_url ?? null,
      }
    },
    style: { brandColor: "#000000", text: "#ffffff" },
    options,
  }
}

function ownerUser(tokens: TokenSet): Record<string, unknown> {
  const owner = tokens.owner as { type?: unknown; user?: unknown } | undefined
  const user = owner?.type === "user" ? (owner.user as Record<string, unknown> | undefined) : undefined
  if (!user || typeof user.id !== "string") throw new TypeError("Notion token response has no owner user")
  return user
}

export default Notion

/** GitLab (OAuth 2) on gitlab.com; point the endpoints at your own instance through the options. */
import type { User } from "../core/types"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The user as `GET /api/v4/user` returns it (common fields). */
export interface GitLabProfile {
  id: number
  username: string
  name: string
  /** The primary email; null or absent when the token lacks `read_user`/`api`. */
  email?: string | null
  public_email?: string | null
  avatar_url: string | null
  web_url?: string
  state?: string
  created_at?: string
  [field: string]: unknown
}

/**
 * GitLab sign-in (`type: "oauth"`), scope `read_user`.
 *
 * @example
 * ```ts
 * import GitLab from "gatehouse/providers/gitlab"
 * GitLab({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function GitLab<P extends GitLabProfile = GitLabProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "gitlab",
    name: "GitLab",
    type: "oauth",
    authorization: { url: "https://gitlab.com/oauth/authorize", params: { scope: "read_user" } },
    token: "https://gitlab.com/oauth/token",
    userinfo: "https://gitlab.com/api/v4/user",
    profile(profile: P): User {
      return {
        id: String(profile.id),
        name: profile.name || profile.username,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      }
    },
    style: { brandColor: "#fc6d26" },
    options,
  }
}

export default GitLab

/** GitLab (OAuth 2) on gitlab.com, or on a self-managed instance through `baseUrl`. */
import type { User } from "../models"
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

export type GitLabUserConfig<P extends GitLabProfile = GitLabProfile> = OAuthUserConfig<P> & {
  /** The instance's origin (and path, if GitLab is served under one); default `https://gitlab.com`. */
  baseUrl?: string
}

/**
 * GitLab sign-in (`type: "oauth"`), scope `read_user`.
 *
 * @example
 * ```ts
 * import GitLab from "gatehouse-auth/providers/gitlab"
 * GitLab({ clientId: "...", clientSecret: "..." })
 * // Self-managed GitLab:
 * GitLab({ baseUrl: "https://gitlab.example.com" })
 * ```
 */
export function GitLab<P extends GitLabProfile = GitLabProfile>(options: GitLabUserConfig<P> = {}): OAuthConfig<P> {
  const baseUrl = (options.baseUrl ?? "https://gitlab.com").replace(/\/+$/, "")
  return {
    id: "gitlab",
    name: "GitLab",
    type: "oauth",
    authorization: { url: `${baseUrl}/oauth/authorize`, params: { scope: "read_user" } },
    token: `${baseUrl}/oauth/token`,
    userinfo: `${baseUrl}/api/v4/user`,
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

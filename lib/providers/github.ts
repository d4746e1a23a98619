/** GitHub (OAuth 2): signs in with a GitHub or GitHub Enterprise Server account, falling back to /user/emails for the email. */
import type { Profile, User } from "../models"
import type { OAuthConfig, OAuthUserConfig, TokenSet } from "./types"

/** The user as `GET /user` returns it (the fields Gatehouse reads, plus common ones). */
export interface GitHubProfile {
  id: number
  login: string
  node_id?: string
  name: string | null
  email: string | null
  avatar_url: string
  html_url?: string
  company?: string | null
  blog?: string | null
  location?: string | null
  bio?: string | null
  twitter_username?: string | null
  type?: string
  created_at?: string
  updated_at?: string
  [field: string]: unknown
}

/** One entry of `GET /user/emails`. */
export interface GitHubEmail {
  email: string
  primary: boolean
  verified: boolean
  visibility: "public" | "private" | null
}

/** Options of {@link GitHub}: the usual OAuth options plus the GitHub Enterprise Server host. */
export type GitHubUserConfig<P extends GitHubProfile = GitHubProfile> = OAuthUserConfig<P> & {
  enterprise?: {
    /** The Enterprise Server origin, e.g. `https://github.example.com`; the API is then at `<baseUrl>/api/v3`. */
    baseUrl?: string | undefined
  }
}

/**
 * GitHub sign-in (`type: "oauth"`). The email comes from the public profile, or else from `/user/emails` (the primary
 * address, else the first one), which is why the default scope includes `user:email`.
 *
 * @example
 * ```ts
 * import GitHub from "gatehouse-auth/providers/github"
 * GitHub({ clientId: process.env.AUTH_GITHUB_ID, clientSecret: process.env.AUTH_GITHUB_SECRET })
 * // GitHub Enterprise Server:
 * GitHub({ enterprise: { baseUrl: "https://github.example.com" } })
 * ```
 */
export function GitHub<P extends GitHubProfile = GitHubProfile>(options: GitHubUserConfig<P> = {}): OAuthConfig<P> {
  const baseUrl = (options.enterprise?.baseUrl ?? "https://github.com").replace(/\/+$/, "")
  const apiUrl = options.enterprise?.baseUrl ? `${baseUrl}/api/v3` : "https://api.github.com"

  return {
    id: "github",
    name: "GitHub",
    type: "oauth",
    issuer: `${baseUrl}/login/oauth`,
    authorization: { url: `${baseUrl}/login/oauth/authorize`, params: { scope: "read:user user:email" } },
    token: `${baseUrl}/login/oauth/access_token`,
    userinfo: {
      url: `${apiUrl}/user`,
      request: ({ tokens, fetch }) => fetchGitHubUser(apiUrl, tokens, fetch),
    },
    profile(profile: P): User {
      return {
        id: String(profile.id),
        name: profile.name ?? profile.login,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      }
    },
    style: { brandColor: "#24292f" },
    options,
  }
}

async function fetchGitHubUser(apiUrl: string, tokens: TokenSet, fetchImpl: typeof fetch): Promise<Profile> {
  const headers = {
    Authorization: `Bearer ${tokens.access_token}`,
    Accept: "application/vnd.github+json",
    "User-Agent": "gatehouse-auth",
  }
  const response = await fetchImpl(`${apiUrl}/user`, { headers })
  if (!response.ok) throw new Error("GitHub user request failed", { cause: { status: response.status } })
  const profile = (await response.json()) as Record<string, unknown>

  if (!profile.email) {
    // Without a public email, ask for the account's addresses; a 403/404 (scope not granted) leaves email null.
    const emails = await fetchImpl(`${apiUrl}/user/emails`, { headers })
    if (emails.ok) {
      const list = (await emails.json()) as GitHubEmail[]
      if (Array.isArray(list) && list.length > 0) profile.email = (list.find((e) => e.primary) ?? list[0]).email
    }
  }
  return profile
}

export default GitHub

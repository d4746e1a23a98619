/** Linear (OAuth 2); the user comes from a GraphQL query. */
import type { Profile, User } from "../models"
import type { OAuthConfig, OAuthUserConfig, TokenSet } from "./types"

/** The answer of the `viewer` query. */
export interface LinearProfile {
  data: { viewer: { id: string; name?: string; email?: string; avatarUrl?: string | null } }
  [field: string]: unknown
}

/** Options of {@link Linear}. */
export type LinearUserConfig<P extends LinearProfile = LinearProfile> = OAuthUserConfig<P>

const GRAPHQL_URL = "https://api.linear.app/graphql"

async function fetchLinearViewer(tokens: TokenSet, fetchImpl: typeof fetch): Promise<Profile> {
  const response = await fetchImpl(GRAPHQL_URL, {
    method: "POST",
    headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ query: "query { viewer { id name email avatarUrl } }" }),
  })
  if (!response.ok) throw new Error("Linear viewer query failed", { cause: { status: response.status } })
  return (await response.json()) as Profile
}

/**
 * Linear sign-in (`type: "oauth"`), scope `read`, credentials in the body (`client_secret_post`). The profile is a
 * GraphQL `POST` of `{ viewer { id name email avatarUrl } }` made with the `fetch` the engine hands the request.
 *
 * @example
 * ```ts
 * import Linear from "gatehouse-auth/providers/linear"
 * Linear({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Linear<P extends LinearProfile = LinearProfile>(options: LinearUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "linear",
    name: "Linear",
    type: "oauth",
    authorization: { url: "https://linear.app/oauth/authorize", params: { scope: "read" } },
    token: "https://api.linear.app/oauth/token",
    userinfo: { url: GRAPHQL_URL, request: ({ tokens, fetch }) => fetchLinearViewer(tokens, fetch) },
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      const viewer = profile.data?.viewer
      if (!viewer) throw new TypeError("Linear answered no viewer")
      return { id: viewer.id, name: viewer.name ?? null, email: viewer.email ?? null, image: viewer.avatarUrl ?? null }
    },
    style: { brandColor: "#5e6ad2", text: "#ffffff" },
    options,
  }
}

export default Linear

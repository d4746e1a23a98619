/** Mastodon (OAuth 2) on the instance named by `issuer`. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The account as `GET /api/v1/accounts/verify_credentials` returns it (common fields). */
export interface MastodonProfile {
  id: string
  username: string
  acct?: string
  display_name?: string
  avatar?: string
  avatar_static?: string
  url?: string
  [field: string]: unknown
}

/** Options of {@link Mastodon}. */
export type MastodonUserConfig<P extends MastodonProfile = MastodonProfile> = OAuthUserConfig<P>

/**
 * Mastodon sign-in (`type: "oauth"`), scope `read`. Set `issuer` (or `AUTH_MASTODON_ISSUER`) to the instance, e.g.
 * `https://mastodon.social`: the endpoints are paths on it. Mastodon returns no email.
 *
 * @example
 * ```ts
 * import Mastodon from "gatehouse-auth/providers/mastodon"
 * Mastodon({ issuer: "https://mastodon.social", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Mastodon<P extends MastodonProfile = MastodonProfile>(
  options: MastodonUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "mastodon",
    name: "Mastodon",
    type: "oauth",
    // Paths: the engine resolves them against the issuer once it is known (option or environment).
    authorization: "/oauth/authorize?scope=read",
    token: "/oauth/token",
    userinfo: "/api/v1/accounts/verify_credentials",
    profile(profile: P): User {
      return { id: profile.id, name: profile.username ?? null, email: null, image: profile.avatar_static ?? null }
    },
    style: { brandColor: "#6364ff", text: "#ffffff" },
    options,
  }
}

export default Mastodon

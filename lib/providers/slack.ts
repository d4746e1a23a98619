/** Slack ("Sign in with Slack"), OpenID Connect with issuer `https://slack.com`. */
import type { User } from "../models"
import { oidcProvider, standardProfile } from "./internal/oidc"
import type { OidcClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Slack ID token. */
export interface SlackProfile extends OidcClaims {
  aud: string
  locale?: string
  "https://slack.com/user_id"?: string
  "https://slack.com/team_id"?: string
  "https://slack.com/team_name"?: string
}

/**
 * Sign in with Slack (`type: "oidc"`), scope `openid profile email`.
 *
 * @example
 * ```ts
 * import Slack from "gatehouse-auth/providers/slack"
 * Slack({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Slack<P extends SlackProfile = SlackProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return oidcProvider<P>(
    {
      id: "slack",
      name: "Slack",
      brandColor: "#4a154b",
      issuer: "https://slack.com",
      checks: ["pkce", "nonce"],
      // The name claim only: no fallback to preferred_username.
      profile: (profile: P): User => ({ ...standardProfile(profile), name: profile.name ?? null }),
    },
    options,
  )
}

export default Slack

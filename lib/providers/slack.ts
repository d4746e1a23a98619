/** Slack ("Sign in with Slack"), OpenID Connect with issuer `https://slack.com`. */
import type { User } from "../core/types"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Slack ID token. */
export interface SlackProfile {
  iss: string
  sub: string
  aud: string
  email?: string
  email_verified?: boolean
  name?: string
  picture?: string
  given_name?: string
  family_name?: string
  locale?: string
  "https://slack.com/user_id"?: string
  "https://slack.com/team_id"?: string
  "https://slack.com/team_name"?: string
  [claim: string]: unknown
}

/**
 * Sign in with Slack (`type: "oidc"`), scope `openid profile email`.
 *
 * @example
 * ```ts
 * import Slack from "gatehouse/providers/slack"
 * Slack({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Slack<P extends SlackProfile = SlackProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "slack",
    name: "Slack",
    type: "oidc",
    issuer: "https://slack.com",
    authorization: { params: { scope: "openid profile email" } },
    profile(profile: P): User {
      return {
        id: profile.sub,
        name: profile.name ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }
    },
    style: { brandColor: "#4a154b" },
    options,
  }
}

export default Slack

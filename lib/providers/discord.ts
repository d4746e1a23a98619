/** Discord (OAuth 2): identify + email, avatar built from Discord's CDN. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The user as `GET /users/@me` returns it. */
export interface DiscordProfile {
  /** A snowflake id. */
  id: string
  username: string
  /** `"0"` for accounts migrated to unique usernames. */
  discriminator: string
  global_name: string | null
  /** The avatar hash; `a_` prefixed when animated. */
  avatar: string | null
  email?: string | null
  verified?: boolean
  locale?: string
  mfa_enabled?: boolean
  [field: string]: unknown
}

/**
 * Discord sign-in (`type: "oauth"`), scope `identify email`.
 *
 * @example
 * ```ts
 * import Discord from "gatehouse-auth/providers/discord"
 * Discord({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Discord<P extends DiscordProfile = DiscordProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "discord",
    name: "Discord",
    type: "oauth",
    authorization: { url: "https://discord.com/oauth2/authorize", params: { scope: "identify email" } },
    token: "https://discord.com/api/oauth2/token",
    userinfo: "https://discord.com/api/users/@me",
    profile(profile: P): User {
      return {
        id: profile.id,
        name: profile.global_name ?? profile.username,
        email: profile.email ?? null,
        image: discordAvatarUrl(profile),
      }
    },
    style: { brandColor: "#5865f2" },
    options,
  }
}

/** The custom avatar, or the default avatar Discord shows for users without one. */
function discordAvatarUrl(profile: DiscordProfile): string {
  if (profile.avatar) {
    const format = profile.avatar.startsWith("a_") ? "gif" : "png"
    return `https://cdn.discordapp.com/avatars/${profile.id}/${profile.avatar}.${format}`
  }
  const index =
    profile.discriminator === "0" || !profile.discriminator
      ? Number((BigInt(profile.id) >> 22n) % 6n)
      : Number(profile.discriminator) % 5
  return `https://cdn.discordapp.com/embed/avatars/${index}.png`
}

export default Discord

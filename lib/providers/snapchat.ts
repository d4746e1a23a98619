/** Snapchat Login Kit (OAuth 2); the user comes from the Snap Kit `me` query. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The answer of `GET https://kit.snapchat.com/v1/me?query={me{externalId displayName bitmoji{avatar}}}`. */
export interface SnapchatProfile {
  data: { me: { externalId: string; displayName?: string; bitmoji?: { avatar?: string | null } } }
  [field: string]: unknown
}

/** Options of {@link Snapchat}. */
export type SnapchatUserConfig<P extends SnapchatProfile = SnapchatProfile> = OAuthUserConfig<P>

const SCOPES = ["display_name", "bitmoji.avatar", "external_id"].map(
  (name) => `https://auth.snapchat.com/oauth2/api/user.${name}`,
)

/**
 * Snapchat sign-in (`type: "oauth"`), scopes for the display name, the Bitmoji avatar and the external id. Snapchat
 * returns no email.
 *
 * @example
 * ```ts
 * import Snapchat from "gatehouse-auth/providers/snapchat"
 * Snapchat({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Snapchat<P extends SnapchatProfile = SnapchatProfile>(
  options: SnapchatUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "snapchat",
    name: "Snapchat",
    type: "oauth",
    authorization: { url: "https://accounts.snapchat.com/accounts/oauth2/auth", params: { scope: SCOPES.join(" ") } },
    token: "https://accounts.snapchat.com/accounts/oauth2/token",
    userinfo: "https://kit.snapchat.com/v1/me?query={me{externalId displayName bitmoji{avatar}}}",
    profile(profile: P): User {
      const me = profile.data?.me
      if (!me) throw new TypeError("Snapchat answered no user")
      return { id: me.externalId, name: me.displayName ?? null, email: null, image: me.bitmoji?.avatar ?? null }
    },
    style: { brandColor: "#fffc00", text: "#000000" },
    options,
  }
}

export default Snapchat

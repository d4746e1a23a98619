/** Roblox (OpenID Connect, issuer `https://apis.roblox.com/oauth/`). */
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Roblox ID token. Roblox gives no email. */
export interface RobloxProfile extends OidcStandardClaims {
  profile?: string
  created_at?: number
}

/** Options of {@link Roblox}. */
export type RobloxUserConfig<P extends RobloxProfile = RobloxProfile> = OAuthUserConfig<P>

/**
 * Roblox sign-in (`type: "oidc"`), scope `openid profile`, with `state`. The issuer keeps its trailing slash, as Roblox
 * publishes it.
 *
 * @example
 * ```ts
 * import Roblox from "gatehouse-auth/providers/roblox"
 * Roblox({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Roblox<P extends RobloxProfile = RobloxProfile>(options: RobloxUserConfig<P> = {}): OAuthConfig<P> {
  return oidcProvider<P>(
    {
      id: "roblox",
      name: "Roblox",
      brandColor: "#335fff",
      text: "#ffffff",
      issuer: "https://apis.roblox.com/oauth/",
      authorization: { params: { scope: "openid profile" } },
      checks: ["pkce", "state"],
    },
    options,
  )
}

export default Roblox

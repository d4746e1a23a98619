/** Battle.net (OpenID Connect); the issuer names the region. */
import type { User } from "../models"
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Battle.net ID token. Battle.net gives no email. */
export interface BattleNetProfile extends OidcStandardClaims {
  battle_tag: string
}

/** Options of {@link BattleNet}. */
export type BattleNetUserConfig<P extends BattleNetProfile = BattleNetProfile> = OAuthUserConfig<P>

/**
 * Battle.net sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_BATTLENET_ISSUER`) to
 * the region's: `https://oauth.battle.net` (Americas, Europe, Korea, Taiwan) or `https://oauth.battlenet.com.cn`
 * (China). The name is the BattleTag.
 *
 * @example
 * ```ts
 * import BattleNet from "gatehouse-auth/providers/battlenet"
 * BattleNet({ issuer: "https://oauth.battle.net", clientId: "...", clientSecret: "..." })
 * ```
 */
export function BattleNet<P extends BattleNetProfile = BattleNetProfile>(
  options: BattleNetUserConfig<P> = {},
): OAuthConfig<P> {
  return oidcProvider<P>(
    {
      id: "battlenet",
      name: "Battle.net",
      brandColor: "#148eff",
      text: "#ffffff",
      profile: (profile): User => ({ id: profile.sub, name: profile.battle_tag ?? null, email: null, image: null }),
    },
    options,
  )
}

export default BattleNet

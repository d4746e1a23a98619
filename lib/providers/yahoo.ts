/** Yahoo (OpenID Connect, issuer `https://api.login.yahoo.com`). */
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Yahoo ID token (common ones). */
export interface YahooProfile extends OidcStandardClaims {
  locale?: string
}

/** Options of {@link Yahoo}. */
export type YahooUserConfig<P extends YahooProfile = YahooProfile> = OAuthUserConfig<P>

/**
 * Yahoo sign-in (`type: "oidc"`), scope `openid email profile`.
 *
 * @example
 * ```ts
 * import Yahoo from "gatehouse-auth/providers/yahoo"
 * Yahoo({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Yahoo<P extends YahooProfile = YahooProfile>(options: YahooUserConfig<P> = {}): OAuthConfig<P> {
  return oidcProvider<P>(
    {
      id: "yahoo",
      name: "Yahoo",
      brandColor: "#6001d2",
      text: "#ffffff",
      issuer: "https://api.login.yahoo.com",
      authorization: { params: { scope: "openid email profile" } },
      profile: (profile) => ({
        id: profile.sub,
        name: profile.name ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }),
    },
    options,
  )
}

export default Yahoo

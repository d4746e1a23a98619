/** ZITADEL (OpenID Connect); the issuer is your ZITADEL instance, given in the options. */
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a ZITADEL ID token (common ones). */
export interface ZitadelProfile extends OidcStandardClaims {
  locale?: string
}

/**
 * ZITADEL sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_ZITADEL_ISSUER`).
 *
 * @example
 * ```ts
 * import Zitadel from "gatehouse-auth/providers/zitadel"
 * Zitadel({ issuer: "https://my-instance.zitadel.cloud", clientId: "...", clientSecret: "..." })
 * ```
 */
export function Zitadel<P extends ZitadelProfile = ZitadelProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return oidcProvider<P>({ id: "zitadel", name: "ZITADEL", brandColor: "#ff8700" }, options)
}

export default Zitadel

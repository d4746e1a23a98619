/** Ping Identity (OpenID Connect); the issuer is your PingOne environment or PingFederate server. */
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Ping Identity ID token (common ones). */
export interface PingIdProfile extends OidcStandardClaims {
  env?: string
  org?: string
}

/** Options of {@link PingId}. */
export type PingIdUserConfig<P extends PingIdProfile = PingIdProfile> = OAuthUserConfig<P>

/**
 * Ping Identity sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_PING_ID_ISSUER`), e.g.
 * `https://auth.pingone.eu/<environment id>/as`.
 *
 * @example
 * ```ts
 * import PingId from "gatehouse-auth/providers/ping-id"
 * PingId({ issuer: "https://auth.pingone.com/<env>/as", clientId: "...", clientSecret: "..." })
 * ```
 */
export function PingId<P extends PingIdProfile = PingIdProfile>(options: PingIdUserConfig<P> = {}): OAuthConfig<P> {
  return oidcProvider<P>({ id: "ping-id", name: "Ping Identity", brandColor: "#b3282d", text: "#ffffff" }, options)
}

export default PingId

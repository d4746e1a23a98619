/** OneLogin (OpenID Connect); the issuer is your OneLogin subdomain's `/oidc/2`. */
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a OneLogin ID token (common ones). */
export interface OneLoginProfile extends OidcStandardClaims {
  groups?: string[]
  updated_at?: number
}

/** Options of {@link OneLogin}. */
export type OneLoginUserConfig<P extends OneLoginProfile = OneLoginProfile> = OAuthUserConfig<P>

/**
 * OneLogin sign-in (`type: "oidc"`), scope `openid profile email`. Set `issuer` (or `AUTH_ONELOGIN_ISSUER`): either
 * the subdomain (`https://acme.onelogin.com`, as Auth.js takes it) or OneLogin's issuer itself
 * (`https://acme.onelogin.com/oidc/2`); the factory adds `/oidc/2` to the first form.
 *
 * @example
 * ```ts
 * import OneLogin from "gatehouse-auth/providers/onelogin"
 * OneLogin({ issuer: "https://acme.onelogin.com", clientId: "...", clientSecret: "..." })
 * ```
 */
export function OneLogin<P extends OneLoginProfile = OneLoginProfile>(
  options: OneLoginUserConfig<P> = {},
): OAuthConfig<P> {
  const base = options.issuer?.replace(/\/+$/, "")
  const issuer = base === undefined || base.endsWith("/oidc/2") ? base : `${base}/oidc/2`
  return oidcProvider<P>(
    { id: "onelogin", name: "OneLogin", brandColor: "#1c1f2a", text: "#ffffff" },
    issuer === undefined ? options : { ...options, issuer },
  )
}

export default OneLogin

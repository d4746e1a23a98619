/** FusionAuth (OpenID Connect) on your instance, optionally for one tenant. */
import type { User } from "../models"
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a FusionAuth ID token (common ones). */
export interface FusionAuthProfile extends OidcStandardClaims {
  middle_name?: string
  applicationId?: string
  roles?: string[]
  sid?: string
}

/** Options of {@link FusionAuth}: the usual OIDC options plus the tenant. */
export type FusionAuthUserConfig<P extends FusionAuthProfile = FusionAuthProfile> = OAuthUserConfig<P> & {
  /** The FusionAuth tenant id, for an instance with several tenants. */
  tenantId?: string
}

/** FusionAuth answers a successful token request with a `WWW-Authenticate` header, which oauth4webapi reads as an error. */
function dropChallenge(response: Response): Response {
  if (response.status === 401 || !response.headers.has("www-authenticate")) return response
  const headers = new Headers(response.headers)
  headers.delete("www-authenticate")
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

/**
 * FusionAuth sign-in (`type: "oidc"`), scope `openid offline_access email profile`, with `state`. Set `issuer` (or
 * `AUTH_FUSIONAUTH_ISSUER`) to the instance. With `tenantId`, discovery and the authorization request name that
 * tenant.
 *
 * @example
 * ```ts
 * import FusionAuth from "gatehouse-auth/providers/fusionauth"
 * FusionAuth({ issuer: "https://auth.example.com", clientId: "...", clientSecret: "...", tenantId: "..." })
 * ```
 */
export function FusionAuth<P extends FusionAuthProfile = FusionAuthProfile>(
  options: FusionAuthUserConfig<P> = {},
): OAuthConfig<P> {
  const { tenantId, ...rest } = options
  const tenant = tenantId ? { tenantId } : {}
  return oidcProvider<P>(
    {
      id: "fusionauth",
      name: "FusionAuth",
      brandColor: "#f58320",
      text: "#ffffff",
      ...(tenantId ? { wellKnown: `/.well-known/openid-configuration?tenantId=${encodeURIComponent(tenantId)}` } : {}),
      authorization: { params: { scope: "openid offline_access email profile", ...tenant } },
      token: { conform: dropChallenge },
      checks: ["pkce", "state"],
      profile: (profile): User => ({
        id: profile.sub,
        email: profile.email ?? null,
        name:
          profile.name ??
          profile.preferred_username ??
          ([profile.given_name, profile.middle_name, profile.family_name].filter(Boolean).join(" ") || null),
        image: profile.picture ?? null,
      }),
    },
    rest as OAuthUserConfig<P>,
  )
}

export default FusionAuth

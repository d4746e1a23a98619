/** Salesforce (OpenID Connect); production by default, a sandbox or My Domain through `issuer`. */
import type { User } from "../core/types"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Salesforce ID token (common ones). */
export interface SalesforceProfile {
  iss: string
  /** The identity URL, `https://login.salesforce.com/id/<org id>/<user id>`. */
  sub: string
  aud: string
  name?: string
  preferred_username?: string
  email?: string
  email_verified?: boolean
  picture?: string
  user_id?: string
  organization_id?: string
  iat: number
  exp: number
  [claim: string]: unknown
}

/**
 * Salesforce sign-in (`type: "oidc"`), issuer `https://login.salesforce.com` (use `https://test.salesforce.com` for a
 * sandbox), scope `openid profile email`.
 *
 * @example
 * ```ts
 * import Salesforce from "gatehouse/providers/salesforce"
 * Salesforce({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Salesforce<P extends SalesforceProfile = SalesforceProfile>(
  options: OAuthUserConfig<P> = {},
): OAuthConfig<P> {
  return {
    id: "salesforce",
    name: "Salesforce",
    type: "oidc",
    issuer: "https://login.salesforce.com",
    authorization: { params: { scope: "openid profile email" } },
    profile(profile: P): User {
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      }
    },
    style: { brandColor: "#00a1e0" },
    options,
  }
}

export default Salesforce

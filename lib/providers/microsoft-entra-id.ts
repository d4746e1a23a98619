/** Microsoft Entra ID (formerly Azure AD), OpenID Connect against the v2.0 endpoint of a tenant. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of an Entra ID v2.0 ID token. */
export interface MicrosoftEntraIDProfile {
  sub: string
  /** The user's object id, stable across the applications of a tenant. */
  oid?: string
  tid?: string
  name?: string
  preferred_username?: string
  /** Present only when the user has an email address and the `email` scope was granted. */
  email?: string
  iss: string
  aud: string
  iat: number
  exp: number
  [claim: string]: unknown
}

/** Options of {@link MicrosoftEntraID}: the usual OIDC options plus the tenant. */
export type MicrosoftEntraIDUserConfig<P extends MicrosoftEntraIDProfile = MicrosoftEntraIDProfile> =
  OAuthUserConfig<P> & {
    /** A tenant id or domain, or `common`, `organizations`, `consumers`. Ignored when `issuer` is given. */
    tenantId?: string | undefined
  }

/**
 * Microsoft Entra ID sign-in (`type: "oidc"`). The issuer is `https://login.microsoftonline.com/<tenant>/v2.0`, with
 * tenant `common` unless `tenantId` (or a full `issuer`) is given. Give your tenant: the multi-tenant endpoints
 * (`common`, `organizations`, `consumers`) name another issuer in their metadata, which discovery refuses (multi-tenant
 * sign-in is not supported yet).
 *
 * @example
 * ```ts
 * import MicrosoftEntraID from "gatehouse-auth/providers/microsoft-entra-id"
 * MicrosoftEntraID({ tenantId: "contoso.onmicrosoft.com", clientId: "...", clientSecret: "..." })
 * ```
 */
export function MicrosoftEntraID<P extends MicrosoftEntraIDProfile = MicrosoftEntraIDProfile>(
  options: MicrosoftEntraIDUserConfig<P> = {},
): OAuthConfig<P> {
  const tenant = options.tenantId ?? "common"
  return {
    id: "microsoft-entra-id",
    name: "Microsoft Entra ID",
    type: "oidc",
    issuer: `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/v2.0`,
    authorization: { params: { scope: "openid profile email User.Read" } },
    profile(profile: P): User {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: null }
    },
    // Microsoft's sign-in button guidelines: light theme white with #5e5e5e text, dark theme #2f2f2f with white.
    style: { brandColor: "#ffffff", text: "#5e5e5e", bgDark: "#2f2f2f", textDark: "#ffffff" },
    options,
  }
}

export default MicrosoftEntraID

/** Microsoft Entra ID (formerly Azure AD), OpenID Connect against the v2.0 endpoint of a tenant. */
import { InvalidConfig } from "../errors"
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

/** Options of {@link MicrosoftEntraID}: the usual OIDC options plus the tenant rules. */
export type MicrosoftEntraIDUserConfig<P extends MicrosoftEntraIDProfile = MicrosoftEntraIDProfile> =
  OAuthUserConfig<P> & {
    /**
     * `common` (default, any Microsoft account), `organizations` (work and school accounts), `consumers` (personal
     * accounts), or one tenant's id or domain. Ignored when `issuer` is given.
     */
    tenantId?: string | undefined
    /**
     * The tenants that may sign in through `common` or `organizations` (required in production): tenant ids, or a
     * function of the tenant id and the validated ID-token claims. `() => true` accepts every tenant on purpose.
     */
    allowedTenants?: string[] | ((tid: string, claims: P) => boolean | Promise<boolean>)
  }

/** `<authority>/<segment>/v2.0`, as Microsoft publishes its issuers. */
const ENTRA_ISSUER = /^https?:\/\/[^/?#]+(?:\/[^/?#]+)*?\/[^/?#]+\/v2\.0\/?$/

/**
 * Microsoft Entra ID sign-in (`type: "oidc"`), scope `openid profile email User.Read`. The issuer is `issuer`, else
 * `https://login.microsoftonline.com/<tenantId>/v2.0` with tenant `common` unless `tenantId` is given.
 *
 * The multi-tenant endpoints (`common`, `organizations`, `consumers`) announce a templated issuer; Gatehouse accepts it
 * and holds each ID token to the tenant its `tid` claim names (`iss` must be that tenant's issuer, whole string), then
 * asks `allowedTenants`. In production `common` and `organizations` need `allowedTenants`.
 *
 * @throws InvalidConfig `entra_issuer_invalid` for an issuer that is not `<authority>/<tenant>/v2.0`.
 * @example
 * ```ts
 * import MicrosoftEntraID from "gatehouse-auth/providers/microsoft-entra-id"
 * MicrosoftEntraID({ tenantId: "common", allowedTenants: ["72f988bf-86f1-41af-91ab-2d7cd011db47"] })
 * MicrosoftEntraID({ tenantId: "contoso.onmicrosoft.com", clientId: "...", clientSecret: "..." })
 * ```
 */
export function MicrosoftEntraID<P extends MicrosoftEntraIDProfile = MicrosoftEntraIDProfile>(
  options: MicrosoftEntraIDUserConfig<P> = {},
): OAuthConfig<P> {
  const { tenantId, ...rest } = options
  const issuer = options.issuer ?? `https://login.microsoftonline.com/${encodeURIComponent(tenantId ?? "common")}/v2.0`
  if (!ENTRA_ISSUER.test(issuer)) {
    throw new InvalidConfig("MicrosoftEntraID: the issuer must be <authority>/<tenant>/v2.0", {
      code: "entra_issuer_invalid",
      cause: { issuer },
    })
  }
  return {
    id: "microsoft-entra-id",
    name: "Microsoft Entra ID",
    type: "oidc",
    issuer,
    entra: true,
    authorization: { params: { scope: "openid profile email User.Read" } },
    profile(profile: P): User {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: null }
    },
    // Microsoft's sign-in button guidelines: light theme white with #5e5e5e text, dark theme #2f2f2f with white.
    style: { brandColor: "#ffffff", text: "#5e5e5e", bgDark: "#2f2f2f", textDark: "#ffffff" },
    options: (tenantId === undefined ? options : rest) as OAuthUserConfig<P>,
  }
}

export default MicrosoftEntraID

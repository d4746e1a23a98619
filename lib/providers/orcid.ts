/** ORCID (OpenID Connect), production or sandbox. */
import { InvalidConfig } from "../errors"
import type { User } from "../models"
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of an ORCID ID token; `sub` is the ORCID iD. ORCID gives no email. */
export interface OrcidProfile extends OidcStandardClaims {
  auth_time?: number
}

/** Options of {@link Orcid}: the usual OIDC options plus the environment. */
export type OrcidUserConfig<P extends OrcidProfile = OrcidProfile> = OAuthUserConfig<P> & {
  /** `"production"` (default, issuer `https://orcid.org`) or `"sandbox"` (`https://sandbox.orcid.org`). */
  environment?: "production" | "sandbox"
}

/**
 * ORCID sign-in (`type: "oidc"`), scope `openid`. The name is `name`, else `given_name family_name`.
 *
 * @throws InvalidConfig for an `environment` other than `"production"` or `"sandbox"`.
 * @example
 * ```ts
 * import Orcid from "gatehouse-auth/providers/orcid"
 * Orcid({ clientId: "APP-...", clientSecret: "...", environment: "sandbox" })
 * ```
 */
export function Orcid<P extends OrcidProfile = OrcidProfile>(options: OrcidUserConfig<P> = {}): OAuthConfig<P> {
  const { environment = "production", ...rest } = options
  if (environment !== "production" && environment !== "sandbox") {
    throw new InvalidConfig("Unknown ORCID environment", {
      code: "invalid_provider_option",
      cause: { provider: "orcid", option: "environment" },
    })
  }
  return oidcProvider<P>(
    {
      id: "orcid",
      name: "ORCID",
      brandColor: "#a6ce39",
      text: "#000000",
      issuer: environment === "sandbox" ? "https://sandbox.orcid.org" : "https://orcid.org",
      authorization: { params: { scope: "openid" } },
      profile: (profile): User => {
        const parts = [profile.given_name, profile.family_name].filter(Boolean).join(" ")
        return { id: profile.sub, name: profile.name ?? (parts || null), email: null, image: null }
      },
    },
    rest as OAuthUserConfig<P>,
  )
}

export default Orcid

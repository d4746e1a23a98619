/** A generic OpenID Connect provider for any issuer that publishes discovery metadata. */
import type { Profile, User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/**
 * Options of {@link OIDC}: the usual OIDC options, where `profile` may also be the security preset `"fapi2"` (a
 * function `profile` is the profile mapping; with both, write `securityProfile: "fapi2"` beside the function).
 */
export type OIDCUserConfig<P extends Profile = Profile> = Omit<OAuthUserConfig<P>, "profile"> & {
  profile?: OAuthConfig<P>["profile"] | "fapi2"
}

/**
 * Any OpenID Connect provider (`type: "oidc"`): give `issuer`, `clientId` and `clientSecret`; `id` defaults to `oidc`
 * (the callback is then `/callback/oidc`) and `name` to `OpenID Connect`. Scope `openid profile email`.
 *
 * @example
 * ```ts
 * import OIDC from "gatehouse-auth/providers/oidc"
 * OIDC({ id: "corp", name: "Corp SSO", issuer: "https://sso.example.com", clientId: "...", clientSecret: "..." })
 * ```
 */
export function OIDC<P extends Profile = Profile>(options: OIDCUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: options.id ?? "oidc",
    name: options.name ?? "OpenID Connect",
    type: "oidc",
    authorization: { params: { scope: "openid profile email" } },
    profile(profile: P): User {
      if (!profile.sub) throw new TypeError("ID token has no sub claim")
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username ?? profile.nickname ?? null,
        email: profile.email ?? null,
        image: typeof profile.picture === "string" ? profile.picture : null,
      }
    },
    style: { brandColor: "#4b5563" },
    options: options as OAuthUserConfig<P>,
  }
}

export default OIDC

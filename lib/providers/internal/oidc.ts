/**
 * What the catalogue's OpenID Connect providers share: the common ID-token claims, the usual claims-to-user mapping
 * and a factory for a provider whose only differences are its id, name, brand colour and a few defaults. Internal:
 * not a package entry point, so nothing here is public API except through the provider files that re-use it.
 */
import type { User } from "../../models"
import type { OAuthConfig, OAuthUserConfig } from "../types"

/** ID-token claims without the lifetime (`iat`, `exp`), for the few providers whose profile type leaves those out. */
export interface OidcClaims {
  iss: string
  sub: string
  aud: string | string[]
  name?: string
  given_name?: string
  family_name?: string
  nickname?: string
  preferred_username?: string
  email?: string
  email_verified?: boolean
  picture?: string
  [claim: string]: unknown
}

/** The standard claims of an ID token (common ones); a provider's profile type adds its own claims to these. */
export interface OidcStandardClaims extends OidcClaims {
  iat: number
  exp: number
}

/**
 * The usual mapping of ID-token claims to a user: `sub`, then `name` (falling back to `nickname`, then
 * `preferred_username`, as Auth.js does), `email` and `picture`, absent ones as `null`. A provider that names its
 * users differently spreads this and overrides `name`.
 *
 * @example
 * ```ts
 * standardProfile({ iss, aud, iat, exp, sub: "u1", preferred_username: "jdoe" })
 * // { id: "u1", name: "jdoe", email: null, image: null }
 * ```
 */
export function standardProfile(profile: OidcClaims): User {
  return {
    id: profile.sub,
    name: profile.name ?? profile.nickname ?? profile.preferred_username ?? null,
    email: profile.email ?? null,
    image: profile.picture ?? null,
  }
}

/** The parts of an {@link oidcProvider} that differ from one provider to the next. */
export type OidcProviderDefaults<P extends OidcClaims> = Omit<
  Partial<OAuthConfig<P>>,
  "id" | "name" | "type" | "profile" | "style" | "options"
> & {
  id: string
  name: string
  brandColor: string
  /** Button text colour, when the brand guidelines name one. */
  text?: string
  /** Maps the claims to the user; {@link standardProfile} when left out. */
  profile?: (profile: P) => User
}

/**
 * An OpenID Connect provider (`type: "oidc"`) with scope `openid profile email`, the given id, name and brand colour,
 * and any other defaults (`issuer`, `client`, …) as given. The issuer comes from the options unless a default is set.
 *
 * @example
 * ```ts
 * export function Okta<P extends OktaProfile = OktaProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
 *   return oidcProvider<P>({ id: "okta", name: "Okta", brandColor: "#007dc1" }, options)
 * }
 * ```
 */
export function oidcProvider<P extends OidcClaims>(
  defaults: OidcProviderDefaults<P>,
  options: OAuthUserConfig<P>,
): OAuthConfig<P> {
  const { id, name, brandColor, text, profile: toUser = standardProfile, ...rest } = defaults
  return {
    id,
    name,
    type: "oidc",
    authorization: { params: { scope: "openid profile email" } },
    ...rest,
    // Called with the claims only: the core passes the token set as a second argument, which is not for the mapper.
    profile(profile: P): User {
      return toUser(profile)
    },
    style: text ? { brandColor, text } : { brandColor },
    options,
  }
}

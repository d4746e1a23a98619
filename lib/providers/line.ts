/** LINE Login (OpenID Connect); its ID tokens are signed with HS256 and the channel secret. */
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a LINE ID token. `email` is present only when the channel has the email permission. */
export interface LineProfile extends OidcStandardClaims {
  amr?: string[]
  auth_time?: number
}

/** Options of {@link Line}. */
export type LineUserConfig<P extends LineProfile = LineProfile> = OAuthUserConfig<P>

/**
 * LINE sign-in (`type: "oidc"`, issuer `https://access.line.me`), scope `openid profile email`.
 *
 * LINE signs its ID tokens with HS256 and the channel secret, so the client registers
 * `id_token_signed_response_alg: "HS256"` and Gatehouse verifies them with `clientSecret` (the only symmetric ID-token
 * algorithm a catalogue provider uses; the `fapi2` preset refuses it). The email needs the "email" permission
 * granted to the channel in the LINE Developers console.
 *
 * @example
 * ```ts
 * import Line from "gatehouse-auth/providers/line"
 * Line({ clientId: "<channel id>", clientSecret: "<channel secret>" })
 * ```
 */
export function Line<P extends LineProfile = LineProfile>(options: LineUserConfig<P> = {}): OAuthConfig<P> {
  return oidcProvider<P>(
    {
      id: "line",
      name: "LINE",
      brandColor: "#06c755",
      text: "#ffffff",
      issuer: "https://access.line.me",
      client: { id_token_signed_response_alg: "HS256" },
      checks: ["pkce", "state"],
    },
    options,
  )
}

export default Line

/** Hugging Face (OpenID Connect, issuer `https://huggingface.co`). */
import { oidcProvider } from "./internal/oidc"
import type { OidcStandardClaims } from "./internal/oidc"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of a Hugging Face ID token (common ones). */
export interface HuggingfaceProfile extends OidcStandardClaims {
  profile?: string
  website?: string
  isPro?: boolean
  canPay?: boolean
  orgs?: unknown[]
}

/** Options of {@link Huggingface}. */
export type HuggingfaceUserConfig<P extends HuggingfaceProfile = HuggingfaceProfile> = OAuthUserConfig<P>

/**
 * Hugging Face sign-in (`type: "oidc"`), scope `openid profile email`, with `state`.
 *
 * @example
 * ```ts
 * import Huggingface from "gatehouse-auth/providers/huggingface"
 * Huggingface({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Huggingface<P extends HuggingfaceProfile = HuggingfaceProfile>(
  options: HuggingfaceUserConfig<P> = {},
): OAuthConfig<P> {
  return oidcProvider<P>(
    {
      id: "huggingface",
      name: "Hugging Face",
      brandColor: "#ffd21e",
      text: "#000000",
      issuer: "https://huggingface.co",
      checks: ["pkce", "state"],
    },
    options,
  )
}

export default Huggingface

/** PayPal (OAuth 2 with OpenID Connect userinfo), live or sandbox. */
import { InvalidConfig } from "../errors"
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The answer of PayPal's `/v1/identity/openidconnect/userinfo?schema=openid`. */
export interface PayPalProfile {
  user_id: string
  sub?: string
  name?: string
  email?: string
  emails?: { value: string; primary?: boolean; confirmed?: boolean }[]
  email_verified?: boolean
  verified_account?: boolean
  [field: string]: unknown
}

/** Options of {@link PayPal}: the usual OAuth options plus the environment. */
export type PayPalUserConfig<P extends PayPalProfile = PayPalProfile> = OAuthUserConfig<P> & {
  /** `"live"` (default) or `"sandbox"` (`www.sandbox.paypal.com`, `api-m.sandbox.paypal.com`). */
  environment?: "live" | "sandbox"
}

/**
 * PayPal sign-in (`type: "oauth"`), scope `openid email profile`. The email is `email`, else the primary entry of
 * `emails`. `environment: "sandbox"` moves every endpoint to PayPal's sandbox.
 *
 * @throws InvalidConfig for an `environment` other than `"live"` or `"sandbox"`.
 * @example
 * ```ts
 * import PayPal from "gatehouse-auth/providers/paypal"
 * PayPal({ clientId: "...", clientSecret: "...", environment: "sandbox" })
 * ```
 */
export function PayPal<P extends PayPalProfile = PayPalProfile>(options: PayPalUserConfig<P> = {}): OAuthConfig<P> {
  const { environment = "live", ...rest } = options
  if (environment !== "live" && environment !== "sandbox") {
    throw new InvalidConfig("Unknown PayPal environment", {
      code: "invalid_provider_option",
      cause: { provider: "paypal", option: "environment" },
    })
  }
  const web = environment === "sandbox" ? "https://www.sandbox.paypal.com" : "https://www.paypal.com"
  const api = environment === "sandbox" ? "https://api-m.sandbox.paypal.com" : "https://api-m.paypal.com"
  return {
    id: "paypal",
    name: "PayPal",
    type: "oauth",
    authorization: { url: `${web}/signin/authorize`, params: { scope: "openid email profile" } },
    token: `${api}/v1/oauth2/token`,
    userinfo: `${api}/v1/identity/openidconnect/userinfo?schema=openid`,
    profile(profile: P): User {
      const primary = profile.emails?.find((e) => e.primary)?.value
      return { id: profile.user_id, name: profile.name ?? null, email: profile.email ?? primary ?? null, image: null }
    },
    style: { brandColor: "#003087", text: "#ffffff" },
    options: rest as OAuthUserConfig<P>,
  }
}

export default PayPal

/** Login with Amazon (OAuth 2). */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The answer of `GET https://api.amazon.com/user/profile`. */
export interface AmazonProfile {
  user_id: string
  name?: string
  email?: string
  postal_code?: string
  [field: string]: unknown
}

/** Options of {@link Amazon}. */
export type AmazonUserConfig<P extends AmazonProfile = AmazonProfile> = OAuthUserConfig<P>

/**
 * Login with Amazon (`type: "oauth"`), scope `profile` (name, email and user id).
 *
 * @example
 * ```ts
 * import Amazon from "gatehouse-auth/providers/amazon"
 * Amazon({ clientId: "amzn1.application-oa2-client....", clientSecret: "..." })
 * ```
 */
export function Amazon<P extends AmazonProfile = AmazonProfile>(options: AmazonUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "amazon",
    name: "Amazon",
    type: "oauth",
    authorization: { url: "https://www.amazon.com/ap/oa", params: { scope: "profile" } },
    token: "https://api.amazon.com/auth/o2/token",
    userinfo: "https://api.amazon.com/user/profile",
    profile(profile: P): User {
      return { id: profile.user_id, name: profile.name ?? null, email: profile.email ?? null, image: null }
    },
    style: { brandColor: "#ff9900", text: "#000000" },
    options,
  }
}

export default Amazon

/** Sign in with Apple (OpenID Connect); Apple posts the callback back (`response_mode=form_post`). */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** Claims of an Apple ID token. Apple never puts the user's name in it. */
export interface AppleProfile {
  iss: string
  aud: string
  sub: string
  email?: string
  /** Apple sends `"true"`/`"false"` strings as well as booleans. */
  email_verified?: boolean | "true" | "false"
  /** Whether the address is an Apple private relay address. */
  is_private_email?: boolean | "true" | "false"
  real_user_status?: 0 | 1 | 2
  nonce?: string
  nonce_supported?: boolean
  auth_time?: number
  /** What Apple posts on the first sign-in only (the `user` form field), read by the callback. */
  user?: { name?: { firstName?: string; lastName?: string }; email?: string }
  iat: number
  exp: number
  [claim: string]: unknown
}

/**
 * Sign in with Apple (`type: "oidc"`), scope `name email`, `response_mode=form_post`. `clientSecret` must be the
 * ES256 client-secret JWT that Apple asks for (signed with your key, at most six months valid). Apple sends the user's
 * name only on the first sign-in, as the form field `user`; the callback reads it (at most 2 KB, invalid JSON
 * ignored) into `profile.user`, and the name is then "First Last", else the email (as Auth.js maps it).
 *
 * @example
 * ```ts
 * import Apple from "gatehouse-auth/providers/apple"
 * Apple({ clientId: "com.example.web", clientSecret: appleClientSecretJwt })
 * ```
 */
export function Apple<P extends AppleProfile = AppleProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "apple",
    name: "Apple",
    type: "oidc",
    issuer: "https://appleid.apple.com",
    authorization: { params: { scope: "name email", response_mode: "form_post" } },
    // Apple's token endpoint only takes the client secret in the body.
    client: { token_endpoint_auth_method: "client_secret_post" },
    // Apple does not document PKCE support, so state and nonce carry the CSRF and replay protection.
    checks: ["pkce", "state", "nonce"],
    profile(profile: P): User {
      const given = profile.user?.name
      const name = given ? [given.firstName, given.lastName].filter(Boolean).join(" ") : ""
      return { id: profile.sub, name: name || profile.email || null, email: profile.email ?? null, image: null }
    },
    style: { brandColor: "#000000", text: "#ffffff" },
    options,
  }
}

export default Apple

/** The `pages` and `cookies` options: the app's own pages, and the names and attributes of every cookie. */
import type { SerializeOptions } from "cookie"

export interface PagesOptions {
  signIn: string
  signOut: string
  error: string
  verifyRequest: string
  newUser: string
  /** Gatehouse: the app's own second-factor page (it posts to `{base}/two-factor` like the built-in one). */
  twoFactor: string
  /** Gatehouse, Password provider: custom pages the built-in GET routes redirect to (with the same query). */
  signUp: string
  forgotPassword: string
  resetPassword: string
}

export interface CookieOption {
  name: string
  options: SerializeOptions
}

export interface CookiesOptions {
  sessionToken: CookieOption
  callbackUrl: CookieOption
  csrfToken: CookieOption
  pkceCodeVerifier: CookieOption
  state: CookieOption
  nonce: CookieOption
  webauthnChallenge: CookieOption
  /** Gatehouse only: the sealed, masked address shown on the verify-request page (10 minutes). */
  verifyAddress: CookieOption
  /** Gatehouse only: the sealed non-password fields of a rejected credentials form, refilled once (5 minutes). */
  credentialsRefill: CookieOption
  /** Gatehouse only: the sealed pending sign-in awaiting its second factor (10 minutes). */
  twoFactor: CookieOption
  /** Gatehouse only: a device trusted to skip the second factor (`twoFactor.trustDevice.maxAge`). */
  twoFactorTrust: CookieOption
}

/** A partial cookie override: any name or single option. */
export type CookiesOverride = {
  [K in keyof CookiesOptions]?: { name?: string; options?: Partial<SerializeOptions> }
}

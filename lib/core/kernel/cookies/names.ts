/** Cookie names and default attributes, per secure/insecure request, with the user's overrides deep-merged in. */
import type { CookieOption, CookiesOptions, CookiesOverride } from "../types"

const baseNames: Record<keyof CookiesOptions, string> = {
  sessionToken: "authjs.session-token",
  callbackUrl: "authjs.callback-url",
  csrfToken: "authjs.csrf-token",
  pkceCodeVerifier: "authjs.pkce.code_verifier",
  state: "authjs.state",
  nonce: "authjs.nonce",
  webauthnChallenge: "authjs.challenge",
  // Gatehouse only: the masked address the verify-request page shows (first-hour review row 18).
  verifyAddress: "gatehouse.verify-address",
  // Gatehouse only: the non-secret fields of a rejected credentials form, refilled once (first-hour review row 28).
  credentialsRefill: "gatehouse.credentials-refill",
  twoFactor: "gatehouse.two-factor",
  twoFactorTrust: "gatehouse.two-factor-trust",
}

/** Seconds a state, PKCE or WebAuthn challenge cookie lives. */
export const CHECK_COOKIE_MAX_AGE = 900

/** Seconds the verify-request page can show the masked address after an email sign-in request. */
export const VERIFY_ADDRESS_MAX_AGE = 600

/** Seconds a sign-in may wait for its second factor (the pending cookie). */
export const TWO_FACTOR_PENDING_MAX_AGE = 600

/** Default seconds a trusted device skips the second factor (30 days). */
export const TWO_FACTOR_TRUST_MAX_AGE = 2_592_000

/** Seconds the sign-in page can refill a rejected credentials form. */
export const CREDENTIALS_REFILL_MAX_AGE = 300

/**
 * The default cookies for a request: `__Secure-` names (and `__Host-` for CSRF) when `secure`.
 *
 * @example
 * ```ts
 * defaultCookies(true).sessionToken.name // "__Secure-authjs.session-token"
 * ```
 */
export function defaultCookies(secure: boolean): CookiesOptions {
  const prefix = secure ? "__Secure-" : ""
  const base = { httpOnly: true, sameSite: "lax" as const, path: "/", secure }
  const make = (key: keyof CookiesOptions, extra: object = {}, namePrefix = prefix): CookieOption => ({
    name: `${namePrefix}${baseNames[key]}`,
    options: { ...base, ...extra },
  })
  return {
    sessionToken: make("sessionToken"),
    callbackUrl: make("callbackUrl"),
    csrfToken: make("csrfToken", {}, secure ? "__Host-" : ""),
    pkceCodeVerifier: make("pkceCodeVerifier", { maxAge: CHECK_COOKIE_MAX_AGE }),
    state: make("state", { maxAge: CHECK_COOKIE_MAX_AGE }),
    nonce: make("nonce"),
    webauthnChallenge: make("webauthnChallenge", { maxAge: CHECK_COOKIE_MAX_AGE }),
    verifyAddress: make("verifyAddress", { maxAge: VERIFY_ADDRESS_MAX_AGE }),
    credentialsRefill: make("credentialsRefill", { maxAge: CREDENTIALS_REFILL_MAX_AGE }),
    twoFactor: make("twoFactor", { maxAge: TWO_FACTOR_PENDING_MAX_AGE }),
    twoFactorTrust: make("twoFactorTrust", { maxAge: TWO_FACTOR_TRUST_MAX_AGE }),
  }
}

/**
 * Defaults for `secure` with `override` deep-merged over them (a name alone, or single options such as `domain`).
 *
 * @example
 * ```ts
 * resolveCookies(false, { sessionToken: { options: { domain: "example.com" } } })
 * ```
 */
export function resolveCookies(secure: boolean, override: CookiesOverride = {}): CookiesOptions {
  const defaults = defaultCookies(secure)
  const out = {} as CookiesOptions
  for (const key of Object.keys(defaults) as (keyof CookiesOptions)[]) {
    const user = override[key]
    const merged: CookieOption = {
      name: user?.name ?? defaults[key].name,
      options: { ...defaults[key].options, ...stripUndefined(user?.options ?? {}) },
    }
    out[key] = Object.freeze({ name: merged.name, options: Object.freeze(merged.options) })
  }
  return Object.freeze(out)
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

/**
 * One sealer for every short-lived value Gatehouse hands the browser and expects back unchanged: the OAuth state, PKCE
 * verifier and nonce cookies, the WebAuthn challenge cookie, and the RP-initiated logout `state`. Each value is
 * sealed (JWE, `lib/jwt`) together with the purpose and the provider it was made for and an exact expiry, so a value
 * minted for one purpose, provider or time cannot be replayed for another.
 *
 * The payload is `{ value, provider, purpose, expiresAt }` under a salt the caller names (the cookie name for
 * cookies, as Auth.js does, so the OAuth check cookies stay readable by Auth.js: it reads `value`). The OAuth engine
 * does not import the core: it receives a {@link CheckSealer} in its flow context.
 */
import { decode, encode } from "../../jwt"

/** What a sealed value is for. */
export type CheckPurpose =
  | "state"
  | "pkce"
  | "nonce"
  | "webauthnChallenge"
  | "signoutState"
  | "verifyAddress"
  | "credentialsRefill"
  | "accessTokenKeys"
  | "nativeContext"
  | "nativeCode"
  | "nativeIssued"
  | "twoFactor"
  | "twoFactorTrust"

/** What the JWE holds. `expiresAt` is epoch milliseconds, checked exactly (the JWE's `exp` allows clock skew). */
export interface SealedCheck<T> {
  value: T
  provider: string
  purpose: CheckPurpose
  expiresAt: number
}

/** Why a sealed value was refused. */
export type CheckFailure = "missing" | "undecodable" | "other-provider" | "other-purpose" | "expired"

export type OpenedCheck<T> = { ok: true; value: T } | { ok: false; reason: CheckFailure }

/** Where a value is sealed: its purpose, the provider it is bound to, the JWE salt, and its lifetime in seconds. */
export interface CheckBinding {
  purpose: CheckPurpose
  provider: string
  salt: string
  /** Seconds; the sealed value and (for a cookie) the cookie live exactly this long. */
  maxAge: number
}

/** Seals and opens values bound to a purpose and a provider; see the module comment. */
export interface CheckSealer {
  seal<T>(binding: CheckBinding, value: T): Promise<string>
  /** `binding.maxAge` is not used to open: the sealed `expiresAt` decides. */
  open<T>(binding: Omit<CheckBinding, "maxAge">, token: string | undefined): Promise<OpenedCheck<T>>
}

/**
 * The sealer for a config's secrets: the first seals, every one opens (rotation).
 *
 * @example
 * ```ts
 * const checks = checkSealer(config.secret)
 * const state = await checks.seal({ purpose: "signoutState", provider: "corp", salt: "s", maxAge: 600 }, { cb })
 * const opened = await checks.open<{ cb: string }>({ purpose: "signoutState", provider: "corp", salt: "s" }, state)
 * if (opened.ok) redirect(opened.value.cb)
 * ```
 */
export function checkSealer(secret: string | readonly string[]): CheckSealer {
  return {
    async seal<T>(binding: CheckBinding, value: T): Promise<string> {
      const payload: SealedCheck<T> = {
        value,
        provider: binding.provider,
        purpose: binding.purpose,
        expiresAt: Date.now() + binding.maxAge * 1000,
      }
      return encode<SealedCheck<T>>({ token: payload, secret, salt: binding.salt, maxAge: binding.maxAge })
    },
    async open<T>(binding: Omit<CheckBinding, "maxAge">, token: string | undefined): Promise<OpenedCheck<T>> {
      if (token === undefined || token === "") return { ok: false, reason: "missing" }
      const payload = await decode<Partial<SealedCheck<T>>>({ token, secret, salt: binding.salt }).catch(() => null)
      if (!payload || payload.value === undefined || payload.value === null) return { ok: false, reason: "undecodable" }
      if (payload.provider !== binding.provider) return { ok: false, reason: "other-provider" }
      if (payload.purpose !== binding.purpose) return { ok: false, reason: "other-purpose" }
      if (typeof payload.expiresAt !== "number" || payload.expiresAt <= Date.now()) {
        return { ok: false, reason: "expired" }
      }
      return { ok: true, value: payload.value }
    },
  }
}

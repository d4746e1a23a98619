/**
 * WebAuthn challenges: sealed in the challenge cookie (bound to provider and ceremony, 900 s by default) and recorded
 * by their SHA-256 in a single-use store, consumed atomically on use, so an assertion can never be replayed. The core
 * hands in what this needs through a {@link ChallengeFlow}: the engine imports nothing of the core.
 */
import { createHash, randomBytes } from "node:crypto"
import { InvalidCheck, WebAuthnVerificationError } from "../errors"
import type { ChallengeStore } from "../providers/types"
import type { ResolvedWebAuthnProvider } from "./provider"

export type Ceremony = "register" | "authenticate"

/** The user a registration is for, fixed when the options were issued. */
export interface RegisterData {
  id: string
  /** The new user's email (empty for an existing user without one). */
  email: string
  name?: string | null
  /** True when the user existed (or was signed in) when the options were issued. */
  exists: boolean
}

/** The sealed value of the challenge cookie (bound to the provider and the `webauthnChallenge` purpose). */
export interface ChallengeValue {
  challenge: string
  ceremony: Ceremony
  registerData?: RegisterData
}

const failureText: Record<ChallengeCheckFailure, string> = {
  missing: "challenge cookie was missing",
  undecodable: "challenge cookie could not be decoded",
  "other-provider": "challenge cookie was issued for another provider",
  "other-purpose": "challenge cookie was issued for another purpose",
  expired: "challenge cookie expired",
}

/** A fresh challenge: 32 random bytes, base64url (43 characters). */
export function newChallenge(): string {
  return randomBytes(32).toString("base64url")
}

const hashOf = (challenge: string): string => createHash("sha256").update(challenge).digest("hex")

/** Why a sealed value did not open (the core's check sealer answers these). */
export type ChallengeCheckFailure = "missing" | "undecodable" | "other-provider" | "other-purpose" | "expired"

/**
 * What a ceremony's challenge needs from the request: the provider, the challenge cookie (name, options, the value
 * the request carried, and ways to set and delete it), the core's check sealer (purpose `webauthnChallenge`), and the
 * single-use store of each ceremony.
 */
export interface ChallengeFlow {
  provider: ResolvedWebAuthnProvider
  cookie: {
    name: string
    options: { readonly maxAge?: number }
    value: string | undefined
    /** Sets the cookie with its options, `maxAge` and `expires` overridden. */
    set(value: string, lifetime: { maxAge: number; expires: Date }): void
    delete(): void
  }
  sealer: {
    seal(
      binding: { purpose: "webauthnChallenge"; provider: string; salt: string; maxAge: number },
      value: unknown,
    ): Promise<string>
    open<T>(
      binding: { purpose: "webauthnChallenge"; provider: string; salt: string },
      sealed: string,
    ): Promise<{ ok: true; value: T } | { ok: false; reason: ChallengeCheckFailure }>
  }
  /** Where a challenge's single use is recorded for `ceremony`. */
  store(ceremony: Ceremony): ChallengeStore
  /** The lifetime of a challenge when the cookie sets none, in seconds. */
  defaultMaxAge: number
}

/** The key a challenge is stored under (custom stores get the ceremony in the key, the adapter in the identifier). */
function keyFor(provider: ResolvedWebAuthnProvider, ceremony: Ceremony, challenge: string): string {
  return provider.challengeStore ? `webauthn:${ceremony}:${hashOf(challenge)}` : hashOf(challenge)
}

/**
 * Records the challenge's hash for 900 s and writes the sealed challenge cookie.
 *
 * @example
 * ```ts
 * await issueChallenge(flow, { challenge, ceremony: "authenticate" })
 * ```
 */
export async function issueChallenge(flow: ChallengeFlow, value: ChallengeValue): Promise<void> {
  const { provider, cookie } = flow
  const { name, options } = cookie
  // A configured cookie `maxAge` is honoured (never overridden); the sealed value and the store record expire with it.
  const maxAge =
    typeof options.maxAge === "number" && Number.isFinite(options.maxAge) && options.maxAge > 0
      ? options.maxAge
      : flow.defaultMaxAge
  const expires = new Date(Date.now() + maxAge * 1000)
  await flow.store(value.ceremony).set(keyFor(provider, value.ceremony, value.challenge), expires)
  const sealed = await flow.sealer.seal(
    { purpose: "webauthnChallenge", provider: provider.id, salt: name, maxAge },
    value,
  )
  cookie.set(sealed, { maxAge, expires })
}

/**
 * Opens the challenge cookie for `ceremony` (queuing its deletion: it is single use whatever the outcome), then
 * consumes the challenge's hash.
 *
 * @throws InvalidCheck when the cookie is missing, tampered with, expired, or for another provider or ceremony.
 * @throws WebAuthnVerificationError when the challenge was already used or has expired in the store (replay).
 * @example
 * ```ts
 * const { challenge } = await consumeChallenge(flow, "authenticate")
 * ```
 */
export async function consumeChallenge(flow: ChallengeFlow, ceremony: Ceremony): Promise<ChallengeValue> {
  const { provider, cookie } = flow
  const { name } = cookie
  const sealed = cookie.value
  const fail = (reason: string): InvalidCheck =>
    new InvalidCheck("webauthnChallenge value could not be parsed", { cause: { reason, provider: provider.id } })
  if (sealed === undefined) throw fail(failureText.missing)
  cookie.delete()
  const opened = await flow.sealer.open<ChallengeValue>(
    { purpose: "webauthnChallenge", provider: provider.id, salt: name },
    sealed,
  )
  if (!opened.ok) throw fail(failureText[opened.reason])
  const value = opened.value
  if (typeof value.challenge !== "string") throw fail(failureText.undecodable)
  if (value.ceremony !== ceremony) throw fail("challenge cookie was issued for another ceremony")
  const fresh = await flow.store(ceremony).consume(keyFor(provider, ceremony, value.challenge))
  if (!fresh) {
    throw new WebAuthnVerificationError("The challenge was already used or has expired", {
      cause: { provider: provider.id },
    })
  }
  return value
}

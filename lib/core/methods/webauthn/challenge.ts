/**
 * WebAuthn challenges: sealed in the `authjs.challenge` cookie (bound to provider and ceremony, 900 s) and recorded
 * server-side by their SHA-256, consumed atomically on use, so an assertion can never be replayed (B.2 rule 1).
 */
import { store } from "../../kernel/config/stores"
import { createHash, randomBytes } from "node:crypto"
import { InvalidCheck, WebAuthnVerificationError } from "../../../errors"
import { checkSealer, type CheckFailure } from "../../kernel/checks"
import type { VerificationTokenAdapter } from "../../../storage/adapter"
import type { ChallengeStore } from "../../../providers/types"
import { CHECK_COOKIE_MAX_AGE } from "../../kernel/cookies/names"
import type { RequestContext } from "../../kernel/context"
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
interface ChallengeValue {
  challenge: string
  ceremony: Ceremony
  registerData?: RegisterData
}

const failureText: Record<CheckFailure, string> = {
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

/**
 * Where a challenge's single use is recorded: the provider's `challengeStore`; else the key-value store when it is
 * shared (configured, or the adapter's), as a first-use marker (`consume`) that outlives the cookie; else the adapter's
 * verification tokens under `webauthn:<ceremony>`; else the per-process key-value store.
 */
function storeFor(ctx: RequestContext, provider: ResolvedWebAuthnProvider, ceremony: Ceremony): ChallengeStore {
  if (provider.challengeStore) return provider.challengeStore
  const adapter = store(ctx.config, "webauthn")
  const { createVerificationToken, useVerificationToken } = adapter
  if (ctx.config.storeSource !== "memory" || !createVerificationToken || !useVerificationToken) {
    const kv = ctx.config.store
    return {
      // The sealed cookie proves the server issued the challenge; the store only has to see each one used once.
      set: () => undefined,
      consume: (token) => kv.consume(`webauthn:used:${ceremony}:${token}`, CHECK_COOKIE_MAX_AGE),
    }
  }
  return tokenStore({ createVerificationToken, useVerificationToken }, ceremony)
}

function tokenStore(adapter: VerificationTokenAdapter, ceremony: Ceremony): ChallengeStore {
  const identifier = `webauthn:${ceremony}`
  return {
    set: async (token, expires) => void (await adapter.createVerificationToken({ identifier, token, expires })),
    consume: async (token) => {
      const row = await adapter.useVerificationToken({ identifier, token })
      return row !== null && new Date(row.expires).getTime() > Date.now()
    },
  }
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
 * await issueChallenge(ctx, provider, { challenge, ceremony: "authenticate" })
 * ```
 */
export async function issueChallenge(
  ctx: RequestContext,
  provider: ResolvedWebAuthnProvider,
  value: ChallengeValue,
): Promise<void> {
  const { name, options } = ctx.cookies.webauthnChallenge
  // A configured cookie `maxAge` is honoured (never overridden); the sealed value and the store record expire with it.
  const maxAge =
    typeof options.maxAge === "number" && Number.isFinite(options.maxAge) && options.maxAge > 0
      ? options.maxAge
      : CHECK_COOKIE_MAX_AGE
  const expires = new Date(Date.now() + maxAge * 1000)
  await storeFor(ctx, provider, value.ceremony).set(keyFor(provider, value.ceremony, value.challenge), expires)
  const sealed = await checkSealer(ctx.config.secret).seal(
    { purpose: "webauthnChallenge", provider: provider.id, salt: name, maxAge },
    value,
  )
  ctx.jar.set(name, sealed, { ...options, maxAge, expires })
}

/**
 * Opens the challenge cookie for `ceremony` (queuing its deletion: it is single use whatever the outcome), then
 * consumes the challenge's hash.
 *
 * @throws InvalidCheck when the cookie is missing, tampered with, expired, or for another provider or ceremony.
 * @throws WebAuthnVerificationError when the challenge was already used or has expired in the store (replay).
 * @example
 * ```ts
 * const { challenge } = await consumeChallenge(ctx, provider, "authenticate")
 * ```
 */
export async function consumeChallenge(
  ctx: RequestContext,
  provider: ResolvedWebAuthnProvider,
  ceremony: Ceremony,
): Promise<ChallengeValue> {
  const { name, options } = ctx.cookies.webauthnChallenge
  const sealed = ctx.request.cookies[name]
  const fail = (reason: string): InvalidCheck =>
    new InvalidCheck("webauthnChallenge value could not be parsed", { cause: { reason, provider: provider.id } })
  if (sealed === undefined) throw fail(failureText.missing)
  ctx.jar.delete(name, options)
  const opened = await checkSealer(ctx.config.secret).open<ChallengeValue>(
    { purpose: "webauthnChallenge", provider: provider.id, salt: name },
    sealed,
  )
  if (!opened.ok) throw fail(failureText[opened.reason])
  const value = opened.value
  if (typeof value.challenge !== "string") throw fail(failureText.undecodable)
  if (value.ceremony !== ceremony) throw fail("challenge cookie was issued for another ceremony")
  const fresh = await storeFor(ctx, provider, ceremony).consume(keyFor(provider, ceremony, value.challenge))
  if (!fresh) {
    throw new WebAuthnVerificationError("The challenge was already used or has expired", {
      cause: { provider: provider.id },
    })
  }
  return value
}

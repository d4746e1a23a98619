/**
 * WebAuthn challenges: sealed in the `authjs.challenge` cookie (bound to provider and ceremony, 900 s) and recorded
 * server-side by their SHA-256, consumed atomically on use, so an assertion can never be replayed (B.2 rule 1).
 */
import { store } from "../config/stores"
import { createHash, randomBytes } from "node:crypto"
import { InvalidCheck, WebAuthnVerificationError } from "../../errors"
import { decode, encode } from "../../jwt"
import type { VerificationTokenAdapter } from "../../adapters/types"
import type { ChallengeStore } from "../../providers/types"
import { CHECK_COOKIE_MAX_AGE } from "../cookies/names"
import type { RequestContext } from "../context"
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

interface ChallengePayload {
  value: { challenge: string; ceremony: Ceremony; registerData?: RegisterData }
  provider: string
  purpose: "webauthnChallenge"
  /** Epoch milliseconds: checked exactly (the JWE's `exp` allows clock skew). */
  expiresAt: number
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
  value: ChallengePayload["value"],
): Promise<void> {
  const expires = new Date(Date.now() + CHECK_COOKIE_MAX_AGE * 1000)
  await storeFor(ctx, provider, value.ceremony).set(keyFor(provider, value.ceremony, value.challenge), expires)
  const { name, options } = ctx.cookies.webauthnChallenge
  const payload: ChallengePayload = {
    value,
    provider: provider.id,
    purpose: "webauthnChallenge",
    expiresAt: expires.getTime(),
  }
  const sealed = await encode<ChallengePayload>({
    token: payload,
    secret: ctx.config.secret,
    salt: name,
    maxAge: CHECK_COOKIE_MAX_AGE,
  })
  ctx.jar.set(name, sealed, { ...options, maxAge: CHECK_COOKIE_MAX_AGE, expires })
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
): Promise<ChallengePayload["value"]> {
  const { name, options } = ctx.cookies.webauthnChallenge
  const sealed = ctx.request.cookies[name]
  const fail = (reason: string): InvalidCheck =>
    new InvalidCheck("webauthnChallenge value could not be parsed", { cause: { reason, provider: provider.id } })
  if (sealed === undefined) throw fail("challenge cookie was missing")
  ctx.jar.delete(name, options)
  const payload = await decode<Partial<ChallengePayload>>({
    token: sealed,
    secret: ctx.config.secret,
    salt: name,
  }).catch(() => null)
  const value = payload?.value
  if (!payload || !value || typeof value.challenge !== "string") throw fail("challenge cookie could not be decoded")
  if (payload.provider !== provider.id) throw fail("challenge cookie was issued for another provider")
  if (payload.purpose !== "webauthnChallenge") throw fail("challenge cookie was issued for another purpose")
  if (value.ceremony !== ceremony) throw fail("challenge cookie was issued for another ceremony")
  if (typeof payload.expiresAt !== "number" || payload.expiresAt <= Date.now()) throw fail("challenge cookie expired")
  const fresh = await storeFor(ctx, provider, ceremony).consume(keyFor(provider, ceremony, value.challenge))
  if (!fresh) {
    throw new WebAuthnVerificationError("The challenge was already used or has expired", {
      cause: { provider: provider.id },
    })
  }
  return value
}

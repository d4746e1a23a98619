/**
 * The provider's hasher as the flows use it: hash a new password, verify a stored hash (the built-in `$scrypt$`
 * verifier, else the app's `verify` hook), the dummy hash that gives every failure path the same cost, and the
 * re-hash decision.
 */
import { randomBytes } from "node:crypto"
import type { LoggerInstance } from "../../../logger"
import {
  hasScryptParams,
  isScryptHash,
  parseScrypt,
  scryptHash,
  scryptParamsInRange,
  scryptVerify,
} from "../../../password/hash"
import type { ResolvedPasswordProvider } from "../../kernel/config/password"

const dummies = new WeakMap<ResolvedPasswordProvider, Promise<string>>()
let warnedUnknownFormat = false

/**
 * Hashes an already normalised password with the provider's hasher (its `hash` hook, else scrypt).
 *
 * @example
 * ```ts
 * const hash = await hashNew(provider, normalized)
 * ```
 */
export function hashNew(provider: ResolvedPasswordProvider, normalized: string): Promise<string> {
  return provider.hash ? provider.hash(normalized) : scryptHash(normalized, provider.scrypt)
}

/** The provider's dummy hash: one hash of 32 random bytes with the current hasher, computed once. */
function dummyHash(provider: ResolvedPasswordProvider): Promise<string> {
  let known = dummies.get(provider)
  if (!known) {
    known = hashNew(provider, randomBytes(32).toString("base64url"))
    // A failed computation is not kept: the next caller tries again.
    known.catch(() => dummies.delete(provider))
    dummies.set(provider, known)
  }
  return known
}

/**
 * Spends what one verification costs, against the dummy hash, and discards the result: the path of an unknown
 * address, a user without a password, or a hash in an unknown format, so that it answers in the same time.
 *
 * @example
 * ```ts
 * await spendVerification(provider, normalized)
 * ```
 */
export async function spendVerification(provider: ResolvedPasswordProvider, normalized: string): Promise<void> {
  const dummy = await dummyHash(provider)
  try {
    if (isScryptHash(dummy)) await scryptVerify(normalized, dummy)
    else await provider.verify?.({ password: normalized, raw: normalized, hash: dummy })
  } catch {
    // The result is discarded; so is a hook's failure.
  }
}

/**
 * Whether `normalized` (typed as `raw`) matches the stored hash. `$scrypt$` is always the built-in verifier's (a
 * malformed or out-of-range string costs the dummy hash and fails); any other format goes to the `verify` hook, and
 * without one never matches.
 *
 * @example
 * ```ts
 * if (!(await verifyStored(provider, logger, { normalized, raw, hash }))) throw new CredentialsSignin()
 * ```
 */
export async function verifyStored(
  provider: ResolvedPasswordProvider,
  logger: Pick<LoggerInstance, "warn">,
  input: { normalized: string; raw: string; hash: string },
): Promise<boolean> {
  const { normalized, raw, hash } = input
  if (isScryptHash(hash)) {
    const parsed = parseScrypt(hash)
    if (!parsed || !scryptParamsInRange(parsed.params)) {
      await spendVerification(provider, normalized)
      return false
    }
    return scryptVerify(normalized, hash)
  }
  if (!provider.verify) {
    if (!warnedUnknownFormat) logger.warn("password-hash-unknown-format")
    warnedUnknownFormat = true
    await spendVerification(provider, normalized)
    return false
  }
  try {
    return (await provider.verify({ password: normalized, raw, hash })) === true
  } catch {
    return false
  }
}

/**
 * Whether a verified hash is replaced: the app's `needsRehash`; else, with the built-in hasher, anything that is not
 * `$scrypt$` with exactly the configured parameters; with a custom `hash`, never.
 *
 * @example
 * ```ts
 * if (needsRehash(provider, stored)) await adapter.setPasswordHash(id, await hashNew(provider, pw), { expected: stored })
 * ```
 */
export function needsRehash(provider: ResolvedPasswordProvider, hash: string): boolean {
  if (provider.needsRehash) return provider.needsRehash(hash) === true
  if (provider.hash) return false
  return !hasScryptParams(hash, provider.scrypt)
}

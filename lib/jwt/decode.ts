/**
 * `decode`: decrypts and validates a session JWE; the key is chosen among the secrets by the `kid` header. Tokens with
 * the session header (`dir` + `A256CBC-HS512`) are opened on `node:crypto` (./jwe.ts); any other header goes to `jose`.
 */
import { errors, jwtDecrypt } from "jose"
import type { CompactJWEHeaderParameters, JWTDecryptOptions } from "jose"
import type { JWT } from "../models"
import { isSessionHeader, openSession, parseCompact } from "./jwe"
import { deriveKey, derivedKeyNow, invalidArgument, toSecretList, type DerivedKey } from "./keys"
import type { ContentEncryption } from "./keys"
import type { JWTDecodeParams } from "./types"

/** Seconds of clock skew accepted on `exp`, `nbf` and `iat`. */
export const CLOCK_TOLERANCE = 15

const CONTENT_ENCRYPTION: readonly ContentEncryption[] = ["A256CBC-HS512", "A256GCM"]
const DECRYPT_OPTIONS: JWTDecryptOptions = {
  clockTolerance: CLOCK_TOLERANCE,
  keyManagementAlgorithms: ["dir"],
  contentEncryptionAlgorithms: [...CONTENT_ENCRYPTION],
}

// Marks the one failure raised by our own key selection, so `classify` passes it through unchanged.
class NoMatchingSecret extends Error {
  override name = "Error"
}

/** The fixed messages of the errors thrown by {@link decodeOrThrow}. */
export type DecodeFailure =
  | "no matching decryption secret"
  | "token expired"
  | "token decryption failed"
  | "token claims invalid"
  | "invalid token"

/**
 * Decodes `token` like {@link decode} but throws on a bad token, so the caller can log why it failed.
 * Resolves `null` only when there is no token. Internal: not exported from `gatehouse-auth/jwt`.
 *
 * @throws Error with a {@link DecodeFailure} message and the underlying error (or the unknown `kid`) in `cause`;
 *   a `TypeError` (code `ERR_INVALID_ARG_VALUE`) when `secret` or `salt` is invalid.
 * @example
 * ```ts
 * try {
 *   const token = await decodeOrThrow({ token: cookie, secret, salt: "authjs.session-token" })
 * } catch (err) {
 *   logger.debug("session cookie rejected", { reason: (err as Error).message })
 * }
 * ```
 */
export async function decodeOrThrow<Payload = JWT>(params: JWTDecodeParams): Promise<Payload | null> {
  const { token, secret, salt } = params
  if (!token) return null
  const secrets = toSecretList(secret)
  if (typeof salt !== "string" || salt.length === 0) throw invalidArgument("salt must be a non-empty string")
  if (typeof token !== "string") throw new Error("invalid token", { cause: { type: typeof token } })

  const jwe = parseCompact(token)
  if (!jwe) throw new Error("invalid token", { cause: new errors.JWEInvalid("Invalid Compact JWE") })
  if (!isSessionHeader(jwe.header)) return decodeWithJose<Payload>(token, secrets, salt)
  const selected = selectKey(jwe.header, secrets, salt)
  const plaintext = openSession(jwe, selected instanceof Promise ? await selected : selected)
  // One failure for every way the authentication or the decryption can fail: nothing tells them apart.
  if (!plaintext) throw new Error("token decryption failed", { cause: new errors.JWEDecryptionFailed() })
  return validateClaims(plaintext) as Payload
}

async function decodeWithJose<Payload>(token: string, secrets: readonly string[], salt: string): Promise<Payload> {
  try {
    const selectJoseKey = (header: CompactJWEHeaderParameters) => {
      const selected = selectKey(header, secrets, salt)
      return selected instanceof Promise ? selected.then((derived) => derived.key) : selected.key
    }
    const { payload } = await jwtDecrypt(token, selectJoseKey, DECRYPT_OPTIONS)
    return payload as Payload
  } catch (err) {
    throw classify(err)
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

// The checks `jose`'s `jwtDecrypt` makes with the options above, in its order and with its error classes (as causes).
function validateClaims(plaintext: Buffer): Record<string, unknown> {
  let claims: unknown
  try {
    claims = JSON.parse(utf8.decode(plaintext))
  } catch (cause) {
    throw new Error("invalid token", {
      cause: new errors.JWTInvalid("JWT Claims Set must be a top-level JSON object", { cause }),
    })
  }
  if (claims === null || typeof claims !== "object" || Array.isArray(claims)) {
    throw new Error("invalid token", { cause: new errors.JWTInvalid("JWT Claims Set must be a top-level JSON object") })
  }
  const set = claims as Record<string, unknown>
  const now = Math.floor(Date.now() / 1000)
  const invalid = (claim: string, message: string, reason = "check_failed") =>
    new Error("token claims invalid", { cause: new errors.JWTClaimValidationFailed(message, set, claim, reason) })
  for (const claim of ["iat", "nbf", "exp"]) {
    if (set[claim] !== undefined && typeof set[claim] !== "number") {
      throw invalid(claim, `"${claim}" claim must be a number`, "invalid")
    }
    if (claim === "nbf" && typeof set.nbf === "number" && set.nbf > now + CLOCK_TOLERANCE) {
      throw invalid("nbf", '"nbf" claim timestamp check failed')
    }
  }
  if (typeof set.exp === "number" && set.exp <= now - CLOCK_TOLERANCE) {
    const cause = new errors.JWTExpired('"exp" claim timestamp check failed', set, "exp", "check_failed")
    throw new Error("token expired", { cause })
  }
  return set
}

/**
 * Decrypts and validates a token from {@link encode} (or from Auth.js). Resolves the payload, or `null` for a
 * missing, malformed, tampered or expired token, or one sealed with another secret or salt. Never throws.
 *
 * @example
 * ```ts
 * const token = await decode({ token: jwe, secret: [newSecret, oldSecret], salt: "authjs.session-token" })
 * if (token) console.log(token.sub)
 * ```
 */
export async function decode<Payload = JWT>(params: JWTDecodeParams): Promise<Payload | null> {
  try {
    return await decodeOrThrow<Payload>(params)
  } catch {
    return null
  }
}

// Runs before any part of the token is authenticated, so it only reads `kid` and `enc` and never trusts other headers.
// Synchronous once the keys are derived (the hot path), so no derivation is awaited.
function selectKey(
  header: Readonly<Record<string, unknown>>,
  secrets: readonly string[],
  salt: string,
): DerivedKey | Promise<DerivedKey> {
  const enc = CONTENT_ENCRYPTION.find((e) => e === header.enc)
  if (enc === undefined) throw new Error("invalid token")
  const known = secrets.map((secret) => derivedKeyNow(secret, salt, enc))
  if (known.every((k) => k !== undefined)) return pickKey(header.kid, known as DerivedKey[])
  return Promise.all(secrets.map((secret) => deriveKey(secret, salt, enc))).then((keys) => pickKey(header.kid, keys))
}

function pickKey(kid: unknown, keys: readonly DerivedKey[]): DerivedKey {
  // Tokens without a kid predate key rotation support in the reference: they belong to the first secret.
  const match = kid === undefined ? keys[0] : keys.find((derived) => derived.kid === kid)
  if (match) return match
  // The kid is attacker-chosen: keep only a bounded string of it for the log.
  throw new NoMatchingSecret("no matching decryption secret", {
    cause: { kid: typeof kid === "string" ? kid.slice(0, 128) : typeof kid },
  })
}

function classify(err: unknown): Error {
  if (err instanceof NoMatchingSecret) return err
  if (err instanceof errors.JWTExpired) return new Error("token expired", { cause: err })
  if (err instanceof errors.JWEDecryptionFailed) return new Error("token decryption failed", { cause: err })
  if (err instanceof errors.JWTClaimValidationFailed) return new Error("token claims invalid", { cause: err })
  return new Error("invalid token", { cause: err })
}

/** `encode`: issues a session JWE in the byte format of Auth.js (`dir` + `A256CBC-HS512`, HKDF key, thumbprint `kid`). */
import { randomUUID } from "node:crypto"
import type { JWT } from "../models"
import { sealSession } from "./jwe"
import { deriveKey, derivedKeyNow, invalidArgument, toSecretList } from "./keys"
import type { JWTEncodeParams } from "./types"

/** Default lifetime of an issued token: 30 days, in seconds. */
export const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60

/**
 * Encrypts `token` into a JWE compact string. `iat`, `exp` (now + `maxAge`) and a fresh `jti` are always
 * overwritten. With an array of secrets the first one encrypts, so the newest secret goes first.
 *
 * @example
 * ```ts
 * const jwe = await encode({ token: { sub: "user-1" }, secret: process.env.AUTH_SECRET!, salt: "authjs.session-token" })
 * ```
 */
export async function encode<Payload = JWT>(params: JWTEncodeParams<Payload>): Promise<string> {
  const { token, secret, salt, maxAge = DEFAULT_MAX_AGE } = params
  const [current] = toSecretList(secret)
  if (typeof salt !== "string" || salt.length === 0) throw invalidArgument("salt must be a non-empty string")
  if (typeof maxAge !== "number" || !Number.isFinite(maxAge)) throw invalidArgument("maxAge must be a finite number")
  const claims = token === undefined ? {} : token
  if (claims === null || typeof claims !== "object" || Array.isArray(claims)) {
    throw invalidArgument("token must be an object")
  }

  const derived = derivedKeyNow(current, salt, "A256CBC-HS512") ?? (await deriveKey(current, salt, "A256CBC-HS512"))
  const now = Math.floor(Date.now() / 1000)
  // The claims set as `jose`'s JWT builder writes it (and Auth.js with it): a structured clone of the payload, so a
  // value that cannot be cloned (a function) still throws, then `iat`, `exp` and `jti` set in this order.
  const payload = structuredClone({ ...(claims as Record<string, unknown>) })
  payload.iat = now
  payload.exp = now + maxAge
  payload.jti = randomUUID()
  if (typeof payload.nbf === "number" && !Number.isFinite(payload.nbf)) {
    throw new TypeError('"nbf" claim must be a finite number')
  }
  return sealSession(derived, JSON.stringify(payload))
}

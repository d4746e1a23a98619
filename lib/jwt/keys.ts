/** HKDF key derivation for session JWEs, with a bounded cache so a hot path derives each key once. */
import { hkdf } from "node:crypto"
import { base64url, calculateJwkThumbprint } from "jose"

/** Content encryption algorithms a session JWE may use; `encode` always writes `A256CBC-HS512`. */
export type ContentEncryption = "A256CBC-HS512" | "A256GCM"

/** A derived key and its `kid` (RFC 7638 thumbprint of the key as an `oct` JWK). */
export interface DerivedKey {
  readonly key: Uint8Array
  readonly kid: string
}

/** Counters for tests and benchmarks. */
export interface KeyCacheStats {
  /** Entries currently cached. */
  size: number
  /** HKDF runs since the last reset (cache misses). */
  derivations: number
}

// Enough for every (secret, salt, enc) a deployment uses: a few rotated secrets times a few cookie names.
const MAX_ENTRIES = 100

// Keyed by (enc, salt, secret). The value is the pending promise, so concurrent first requests share one derivation;
// `settled` holds the same entries once derived, so a hot path can take its key without an await.
const cache = new Map<string, Promise<DerivedKey>>()
const settled = new Map<string, DerivedKey>()
let derivations = 0

// Collision-free: the algorithm is one of two fixed names and the salt's length is spelled out.
const cacheId = (secret: string, salt: string, enc: ContentEncryption) => `${enc}|${salt.length}|${salt}|${secret}`

/**
 * The key {@link deriveKey} already derived for these inputs, or `undefined` (derive it with {@link deriveKey}).
 *
 * @example
 * ```ts
 * const known = derivedKeyNow(secret, "authjs.session-token", "A256CBC-HS512") ?? (await deriveKey(...))
 * ```
 */
export function derivedKeyNow(secret: string, salt: string, enc: ContentEncryption): DerivedKey | undefined {
  return settled.get(cacheId(secret, salt, enc))
}

/**
 * Derives the encryption key for `secret` and `salt` exactly as Auth.js does, so tokens are interchangeable:
 * HKDF-SHA256 with info `Auth.js Generated Encryption Key (<salt>)`, 64 bytes for `A256CBC-HS512`, 32 for `A256GCM`.
 * Results are cached (least recently used evicted after 100 entries).
 *
 * @example
 * ```ts
 * const { key, kid } = await deriveKey(process.env.AUTH_SECRET!, "authjs.session-token", "A256CBC-HS512")
 * ```
 */
export function deriveKey(secret: string, salt: string, enc: ContentEncryption): Promise<DerivedKey> {
  const id = cacheId(secret, salt, enc)
  const hit = cache.get(id)
  if (hit) {
    // Re-insert so Map order is recency order and eviction drops the least recently used entry.
    cache.delete(id)
    cache.set(id, hit)
    return hit
  }
  const pending = computeKey(secret, salt, enc)
  cache.set(id, pending)
  if (cache.size > MAX_ENTRIES) {
    const oldest = cache.keys().next().value
    if (oldest !== undefined) {
      cache.delete(oldest)
      settled.delete(oldest)
    }
  }
  void pending.then(
    (derived) => {
      if (cache.get(id) === pending) settled.set(id, derived)
    },
    () => undefined,
  )
  // A failed derivation must not stay cached; the caller still sees the rejection through `pending`.
  void pending.catch(() => {
    if (cache.get(id) === pending) cache.delete(id)
  })
  return pending
}

/**
 * Reports the key cache size and how many derivations ran. Internal: for tests and benchmarks.
 *
 * @example
 * ```ts
 * resetKeyCache()
 * await decode({ token, secret, salt })
 * keyCacheStats().derivations // 1
 * ```
 */
export function keyCacheStats(): KeyCacheStats {
  return { size: cache.size, derivations }
}

/**
 * Empties the key cache and zeroes the derivation counter. Internal: for tests.
 *
 * @example
 * ```ts
 * beforeEach(() => resetKeyCache())
 * ```
 */
export function resetKeyCache(): void {
  cache.clear()
  settled.clear()
  derivations = 0
}

async function computeKey(secret: string, salt: string, enc: ContentEncryption): Promise<DerivedKey> {
  derivations++
  const length = enc === "A256CBC-HS512" ? 64 : 32
  const key = await hkdfSha256(secret, salt, `Auth.js Generated Encryption Key (${salt})`, length)
  // The thumbprint hash matches the key size (SHA-512 for 64 bytes, SHA-256 for 32), as the reference does.
  const kid = await calculateJwkThumbprint(
    { kty: "oct", k: base64url.encode(key) },
    length === 64 ? "sha512" : "sha256",
  )
  return { key, kid }
}

function hkdfSha256(ikm: string, salt: string, info: string, length: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    hkdf("sha256", ikm, salt, info, length, (err, derived) => {
      if (err) reject(err)
      else resolve(new Uint8Array(derived))
    })
  })
}

/**
 * Normalises `secret` to a non-empty list of non-empty strings; a caller's mistake is a `TypeError`
 * with code `ERR_INVALID_ARG_VALUE`.
 *
 * @example
 * ```ts
 * toSecretList(["new", "old"]) // ["new", "old"]
 * ```
 */
export function toSecretList(secret: unknown): readonly string[] {
  const list: readonly unknown[] = Array.isArray(secret) ? secret : [secret]
  if (list.length === 0 || !list.every((s) => typeof s === "string" && s.length > 0)) {
    throw invalidArgument("secret must be a non-empty string or array of them")
  }
  return list as readonly string[]
}

/**
 * Builds the `TypeError` used for invalid arguments.
 *
 * @example
 * ```ts
 * throw invalidArgument("salt must be a non-empty string")
 * ```
 */
export function invalidArgument(message: string): TypeError & { code: "ERR_INVALID_ARG_VALUE" } {
  return Object.assign(new TypeError(message), { code: "ERR_INVALID_ARG_VALUE" as const })
}

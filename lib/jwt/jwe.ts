/**
 * The session JWE step on `node:crypto`: compact `dir` + `A256CBC-HS512` (RFC 7516 section 7.1; RFC 7518 sections
 * 5.2.2 and 5.2.5). `jose` imports the key halves into WebCrypto on every call, which was the floor of every session
 * path; here they are imported once per derived key. Any other header is left to `jose` by the caller.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  randomFillSync,
  timingSafeEqual,
} from "node:crypto"
import type { KeyObject } from "node:crypto"
import type { DerivedKey } from "./keys"

/** A compact JWE whose five segments are canonical base64url and whose protected header is a JSON object. */
export interface CompactJwe {
  readonly header: Readonly<Record<string, unknown>>
  /** Protected header, encrypted key, IV, ciphertext and tag, as they appear in the token. */
  readonly segments: readonly string[]
  /** The same five, decoded. */
  readonly bytes: readonly Buffer[]
}

interface PreparedKey {
  readonly mac: KeyObject
  readonly enc: KeyObject
  /** The protected header of tokens this key seals, serialised as `jose` does (`alg`, `enc`, `kid`, in that order). */
  readonly header: string
  /** AL of that header: its length in bits as a 64-bit big-endian integer. */
  readonly headerBits: Buffer
}

const IV_BYTES = 16
const TAG_BYTES = 32
const SESSION_HEADER_MEMBERS = new Set(["alg", "enc", "kid"])
const utf8 = new TextDecoder("utf-8", { fatal: true })
const prepared = new WeakMap<DerivedKey, PreparedKey>()

// IVs are drawn from the CSPRNG 256 at a time and each handed out once (as Node's `randomUUID` pools its bytes).
const ivPool = Buffer.alloc(IV_BYTES * 256)
let ivOffset = ivPool.length

function freshIv(): Buffer {
  if (ivOffset === ivPool.length) {
    randomFillSync(ivPool)
    ivOffset = 0
  }
  ivOffset += IV_BYTES
  return ivPool.subarray(ivOffset - IV_BYTES, ivOffset)
}

// RFC 7518 5.2.2.1: MAC_KEY is the first half of the 64-byte key, ENC_KEY the second.
function prepare(derived: DerivedKey): PreparedKey {
  let known = prepared.get(derived)
  if (!known) {
    const header = Buffer.from(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512", kid: derived.kid })).toString(
      "base64url",
    )
    known = {
      mac: createSecretKey(derived.key.subarray(0, 32)),
      enc: createSecretKey(derived.key.subarray(32, 64)),
      header,
      headerBits: bitLength(header),
    }
    prepared.set(derived, known)
  }
  return known
}

// Canonical base64url only (no padding, no other alphabet, zero trailing bits): one token has one spelling.
function strictBase64url(segment: string): Buffer | undefined {
  const bytes = Buffer.from(segment, "base64url")
  return bytes.toString("base64url") === segment ? bytes : undefined
}

/**
 * Splits a compact JWE strictly: five segments, each canonical base64url, the first a UTF-8 JSON object.
 *
 * @example
 * ```ts
 * const jwe = parseCompact(token)
 * if (jwe && isSessionHeader(jwe.header)) plaintext = openSession(jwe, key)
 * ```
 */
export function parseCompact(token: string): CompactJwe | undefined {
  const segments = token.split(".")
  if (segments.length !== 5 || segments[0] === "") return
  const bytes: Buffer[] = []
  for (const segment of segments) {
    const decoded = strictBase64url(segment)
    if (decoded === undefined) return
    bytes.push(decoded)
  }
  let header: unknown
  try {
    header = JSON.parse(utf8.decode(bytes[0]))
  } catch {
    return
  }
  if (header === null || typeof header !== "object" || Array.isArray(header)) return
  return { header: header as Record<string, unknown>, segments, bytes }
}

/**
 * Whether this module opens the token: `alg` `dir`, `enc` `A256CBC-HS512`, an optional string `kid`, nothing else (so
 * no `zip`, no `crit`, no replicated claims).
 *
 * @example
 * ```ts
 * isSessionHeader({ alg: "dir", enc: "A256GCM" }) // false: jose decrypts it
 * ```
 */
export function isSessionHeader(header: Readonly<Record<string, unknown>>): boolean {
  return (
    header.alg === "dir" &&
    header.enc === "A256CBC-HS512" &&
    (header.kid === undefined || typeof header.kid === "string") &&
    Object.keys(header).every((member) => SESSION_HEADER_MEMBERS.has(member))
  )
}

// AL (RFC 7518 5.2.2.1 step 4): the number of bits in the AAD as a 64-bit big-endian integer.
function bitLength(aad: string): Buffer {
  const al = Buffer.alloc(8)
  al.writeBigUInt64BE(BigInt(aad.length * 8))
  return al
}

// RFC 7518 5.2.2.1 step 5: T = the first 32 bytes of HMAC-SHA-512(MAC_KEY, A || IV || E || AL).
function tag(key: PreparedKey, aad: string, al: Buffer, iv: Buffer, ciphertext: Buffer): Buffer {
  return createHmac("sha512", key.mac).update(aad, "latin1").update(iv).update(ciphertext).update(al).digest()
}

/**
 * Seals `plaintext` under `derived` with a random 16-byte IV: `<header>..<iv>.<ciphertext>.<tag>`.
 *
 * @example
 * ```ts
 * const token = sealSession(await deriveKey(secret, salt, "A256CBC-HS512"), JSON.stringify(claims))
 * ```
 */
export function sealSession(derived: DerivedKey, plaintext: string): string {
  const key = prepare(derived)
  const iv = freshIv()
  const cipher = createCipheriv("aes-256-cbc", key.enc, iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  const mac = tag(key, key.header, key.headerBits, iv, ciphertext).subarray(0, TAG_BYTES)
  return `${key.header}..${iv.toString("base64url")}.${ciphertext.toString("base64url")}.${mac.toString("base64url")}`
}

/**
 * Opens a token {@link parseCompact} accepted and {@link isSessionHeader} claimed, or `undefined`. The tag is computed
 * and compared in constant time before anything is decrypted; a present encrypted key, an IV or tag of the wrong
 * length, a wrong tag and a padding error all end in the same `undefined`.
 *
 * @example
 * ```ts
 * const plaintext = openSession(jwe, key) // Buffer, or undefined
 * ```
 */
export function openSession(jwe: CompactJwe, derived: DerivedKey): Buffer | undefined {
  const key = prepare(derived)
  const [aad, encryptedKey] = jwe.segments as [string, string]
  const [, , iv, ciphertext, given] = jwe.bytes as [Buffer, Buffer, Buffer, Buffer, Buffer]
  const expected = tag(key, aad, bitLength(aad), iv, ciphertext).subarray(0, TAG_BYTES)
  // Lengths are public: checking them first reveals nothing, and the tag was computed either way.
  const authentic = given.length === TAG_BYTES && timingSafeEqual(expected, given)
  if (!authentic || encryptedKey !== "" || iv.length !== IV_BYTES) return undefined
  try {
    const decipher = createDecipheriv("aes-256-cbc", key.enc, iv)
    return Buffer.concat([decipher.update(ciphertext), decipher.final()])
  } catch {
    return undefined
  }
}

/**
 * The TOTP secret at rest: `gh1.` + a compact JWE (`dir`, `A256GCM`) under a key derived from the config's secret,
 * with the key's id (`kid`) and the user id (`uid`) in the protected header. The first secret encrypts; decryption
 * picks the secret whose key has the row's `kid` and refuses a row sealed for another user.
 */
import { createHash, hkdfSync, randomBytes } from "node:crypto"
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from "jose"

const PREFIX = "gh1."
/** Bytes of a new secret (160 bits, RFC 4226 section 4 R6). */
export const TOTP_SECRET_BYTES = 20

interface SecretKey {
  key: Uint8Array
  kid: string
}

const derived = new Map<string, SecretKey>()

function keyOf(secret: string): SecretKey {
  let known = derived.get(secret)
  if (!known) {
    const key = new Uint8Array(hkdfSync("sha256", secret, "gatehouse.totp", "Gatehouse TOTP secret", 32))
    const kid = createHash("sha256").update(key).digest("base64url").slice(0, 16)
    known = { key, kid }
    derived.set(secret, known)
  }
  return known
}

/** A new random TOTP secret. */
export function newTotpSecret(): Buffer {
  return randomBytes(TOTP_SECRET_BYTES)
}

/**
 * Seals `raw` for `userId` under the first of `secrets`.
 *
 * @example
 * ```ts
 * const stored = await sealTotpSecret(raw, "user-1", config.secret) // "gh1.eyJ..."
 * ```
 */
export async function sealTotpSecret(raw: Uint8Array, userId: string, secrets: readonly string[]): Promise<string> {
  const { key, kid } = keyOf(secrets[0]!)
  const jwe = await new CompactEncrypt(raw)
    .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid, uid: userId })
    .encrypt(key)
  return `${PREFIX}${jwe}`
}

/** What opening a stored secret gave: the raw bytes and whether it was sealed under another than the first secret. */
export type OpenedTotpSecret = { ok: true; raw: Buffer; rotated: boolean } | { ok: false; reason: "unreadable" }

/**
 * Opens a stored secret for `userId`. `unreadable` when the format is wrong, no configured secret has its `kid`, the
 * `uid` is another user's, or the ciphertext does not authenticate.
 *
 * @example
 * ```ts
 * const opened = await openTotpSecret(row.secret, row.userId, config.secret)
 * ```
 */
export async function openTotpSecret(
  stored: string,
  userId: string,
  secrets: readonly string[],
): Promise<OpenedTotpSecret> {
  if (typeof stored !== "string" || !stored.startsWith(PREFIX)) return { ok: false, reason: "unreadable" }
  const jwe = stored.slice(PREFIX.length)
  try {
    const header = decodeProtectedHeader(jwe)
    if (header.alg !== "dir" || header.enc !== "A256GCM" || header.uid !== userId) {
      return { ok: false, reason: "unreadable" }
    }
    const index = secrets.findIndex((secret) => keyOf(secret).kid === header.kid)
    if (index === -1) return { ok: false, reason: "unreadable" }
    const { plaintext, protectedHeader } = await compactDecrypt(jwe, keyOf(secrets[index]!).key)
    if (protectedHeader.uid !== userId) return { ok: false, reason: "unreadable" }
    return { ok: true, raw: Buffer.from(plaintext), rotated: index !== 0 }
  } catch {
    return { ok: false, reason: "unreadable" }
  }
}

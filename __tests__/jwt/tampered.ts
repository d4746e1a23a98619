/**
 * Tampered forms of a valid session JWE, shared by the decoder's tamper tests and the same list sent to
 * `GET /auth/session`: single-byte flips in every segment, truncations, swapped IV and tag, foreign headers, extra
 * segments, non-canonical base64url, a 4 MB token, and tokens whose tag is valid but whose IV, tag length or padding
 * is not. Every one must be refused.
 */
import { createCipheriv, createHmac } from "node:crypto"
import { CompactEncrypt } from "jose"

export interface Tampered {
  name: string
  token: string
  /**
   * `decryption`: the header is the session header, so the refusal must be the one failure of the JWE step ("token
   * decryption failed"); `any`: any refusal (the header itself was changed).
   */
  refusal: "decryption" | "any"
}

/** The segments that carry bytes (the encrypted key of `dir` is empty), by index in the compact form. */
const SEGMENTS = [
  [0, "header"],
  [2, "iv"],
  [3, "ciphertext"],
  [4, "tag"],
] as const

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url")
const unb64 = (text: string) => Buffer.from(text, "base64url")

/** The session JWE's tag (RFC 7518 5.2.2.1) over `header`, `iv` and `ciphertext`, with the key's MAC half. */
export function macOf(key: Uint8Array, header: string, iv: Buffer, ciphertext: Buffer): Buffer {
  const al = Buffer.alloc(8)
  al.writeBigUInt64BE(BigInt(header.length * 8))
  return createHmac("sha512", key.subarray(0, 32)).update(header).update(iv).update(ciphertext).update(al).digest()
}

/** A token under `key` with the given header, IV and ciphertext and a correct tag (`tagBytes` of it). */
export function withValidTag(key: Uint8Array, header: string, iv: Buffer, ciphertext: Buffer, tagBytes = 32): string {
  return [header, "", b64(iv), b64(ciphertext), b64(macOf(key, header, iv, ciphertext).subarray(0, tagBytes))].join(".")
}

// The same bytes spelled another way: the last character's unused low bits set (jose's decoder accepted these).
function nonCanonical(segment: string): string | undefined {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
  const unused = segment.length % 4 === 2 ? 0b1111 : segment.length % 4 === 3 ? 0b11 : 0
  if (unused === 0) return undefined
  const last = alphabet.indexOf(segment.at(-1)!)
  return segment.slice(0, -1) + alphabet[last | 1]
}

/**
 * Every tampered form of `valid`, a token sealed under the 64-byte `key` with the session header.
 */
export async function tamperedTokens(valid: string, key: Uint8Array): Promise<Tampered[]> {
  const parts = valid.split(".")
  const [header, , iv, ciphertext, tag] = parts as [string, string, string, string, string]
  const out: Tampered[] = []
  const replace = (index: number, segment: string) => parts.map((p, i) => (i === index ? segment : p)).join(".")
  const headerJson = JSON.parse(unb64(header).toString("utf8")) as Record<string, unknown>
  const withHeader = (fields: Record<string, unknown>) => replace(0, b64(JSON.stringify(fields)))

  // Every single-byte flip, in each segment (the encrypted key is empty: any content there is the tamper).
  for (const [index, label] of SEGMENTS) {
    const bytes = unb64(parts[index]!)
    for (let at = 0; at < bytes.length; at++) {
      for (const mask of [0x01, 0x80]) {
        const flipped = Buffer.from(bytes)
        flipped[at]! ^= mask
        out.push({
          name: `${label} byte ${at} ^ 0x${mask.toString(16)}`,
          token: replace(index, b64(flipped)),
          refusal: index === 0 ? "any" : "decryption",
        })
      }
    }
  }
  for (const content of [Buffer.from([0]), Buffer.from([0xff]), Buffer.alloc(32, 7), Buffer.from(key)]) {
    out.push({
      name: `encrypted key of ${content.length} bytes`,
      token: replace(1, b64(content)),
      refusal: "decryption",
    })
  }

  // Truncations: each segment shortened by one character, halved and emptied; the token cut at each dot.
  for (const [index, label] of SEGMENTS) {
    const segment = parts[index]!
    for (const [how, cut] of [
      ["by one", segment.slice(0, -1)],
      ["to half", segment.slice(0, segment.length >> 1)],
      ["to nothing", ""],
    ] as const) {
      out.push({ name: `${label} truncated ${how}`, token: replace(index, cut), refusal: "any" })
    }
  }
  for (let dot = valid.indexOf("."); dot !== -1; dot = valid.indexOf(".", dot + 1)) {
    out.push({ name: `token cut at offset ${dot}`, token: valid.slice(0, dot), refusal: "any" })
  }
  out.push({ name: "token cut by one character", token: valid.slice(0, -1), refusal: "any" })

  out.push({ name: "IV and tag swapped", token: [header, "", tag, ciphertext, iv].join("."), refusal: "any" })

  // Headers this decoder does not take: they go to jose, which must refuse them too.
  out.push({ name: "alg none", token: withHeader({ ...headerJson, alg: "none" }), refusal: "any" })
  out.push({ name: "alg none alone", token: withHeader({ alg: "none" }), refusal: "any" })
  out.push({ name: "enc A128CBC-HS256", token: withHeader({ ...headerJson, enc: "A128CBC-HS256" }), refusal: "any" })
  out.push({ name: "zip DEF", token: withHeader({ ...headerJson, zip: "DEF" }), refusal: "any" })
  out.push({ name: "crit exp", token: withHeader({ ...headerJson, crit: ["exp"], exp: 1 }), refusal: "any" })
  out.push({ name: "crit b64", token: withHeader({ ...headerJson, crit: ["b64"], b64: false }), refusal: "any" })
  out.push({ name: "kid a number", token: withHeader({ ...headerJson, kid: 1 }), refusal: "any" })
  const a128 = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ sub: "a128" })))
    .setProtectedHeader({ alg: "dir", enc: "A128CBC-HS256", kid: headerJson.kid as string })
    .encrypt(key.subarray(0, 32))
  out.push({ name: "a genuine A128CBC-HS256 token under half the key", token: a128, refusal: "any" })
  const zipped = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ sub: "zip" })))
    .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", kid: `${headerJson.kid as string}x`, zip: "DEF" })
    .encrypt(key)
  out.push({ name: "a zip DEF token under an unknown kid", token: zipped, refusal: "any" })

  // Extra and missing segments.
  out.push({ name: "six segments (trailing dot)", token: `${valid}.`, refusal: "any" })
  out.push({ name: "six segments", token: `${valid}.${tag}`, refusal: "any" })
  out.push({ name: "four segments", token: [header, iv, ciphertext, tag].join("."), refusal: "any" })
  out.push({ name: "three segments (a JWS shape)", token: [header, ciphertext, tag].join("."), refusal: "any" })

  // Non-canonical base64url: padding, the standard alphabet, whitespace, unused bits set.
  for (const [index, label] of SEGMENTS) {
    const segment = parts[index]!
    if (segment.length % 4 !== 0) {
      out.push({
        name: `${label} padded`,
        token: replace(index, segment.padEnd(segment.length + (4 - (segment.length % 4)), "=")),
        refusal: "any",
      })
    }
    const spelled = nonCanonical(segment)
    if (spelled !== undefined && unb64(spelled).equals(unb64(segment))) {
      out.push({ name: `${label} with unused bits set`, token: replace(index, spelled), refusal: "any" })
    }
    out.push({
      name: `${label} with a space`,
      token: replace(index, `${segment.slice(0, 4)} ${segment.slice(4)}`),
      refusal: "any",
    })
    const standard = segment.replace(/-/g, "+").replace(/_/g, "/")
    if (standard !== segment)
      out.push({ name: `${label} in the standard alphabet`, token: replace(index, standard), refusal: "any" })
  }

  // 4 MB: a well-formed token with a 4 MB ciphertext (the tag cannot match), and 4 MB of one character.
  const huge = Buffer.alloc(3 * 1024 * 1024, 0x5a)
  out.push({ name: "a 4 MB ciphertext", token: replace(3, b64(huge)), refusal: "decryption" })
  out.push({ name: "4 MB of one character", token: "A".repeat(4 * 1024 * 1024), refusal: "any" })

  // A correct tag over contents that are still wrong: the refusal must be the same as for a wrong tag.
  const iv16 = Buffer.alloc(16, 1)
  const encryptRaw = (plaintext: Buffer, ivBytes: Buffer) => {
    const cipher = createCipheriv("aes-256-cbc", key.subarray(32), ivBytes).setAutoPadding(false)
    return Buffer.concat([cipher.update(plaintext), cipher.final()])
  }
  const badPadding = encryptRaw(Buffer.concat([Buffer.from('{"sub":"padding"}'), Buffer.alloc(15, 0x11)]), iv16)
  out.push({
    name: "valid tag, bad padding",
    token: withValidTag(key, header, iv16, badPadding),
    refusal: "decryption",
  })
  const zeroPadding = encryptRaw(Buffer.concat([Buffer.from('{"sub":"zero"}'), Buffer.alloc(2, 0)]), iv16)
  out.push({
    name: "valid tag, zero padding byte",
    token: withValidTag(key, header, iv16, zeroPadding),
    refusal: "decryption",
  })
  out.push({
    name: "valid tag, ciphertext not a whole block",
    token: withValidTag(key, header, iv16, Buffer.alloc(20, 3)),
    refusal: "decryption",
  })
  out.push({
    name: "valid tag, empty ciphertext",
    token: withValidTag(key, header, iv16, Buffer.alloc(0)),
    refusal: "decryption",
  })
  const sealed = unb64(ciphertext)
  out.push({
    name: "valid tag, 12-byte IV",
    token: withValidTag(key, header, Buffer.alloc(12, 1), sealed),
    refusal: "decryption",
  })
  out.push({
    name: "valid tag truncated to 16 bytes",
    token: withValidTag(key, header, unb64(iv), sealed, 16),
    refusal: "decryption",
  })
  out.push({
    name: "valid tag, all 64 bytes of the HMAC",
    token: withValidTag(key, header, unb64(iv), sealed, 64),
    refusal: "decryption",
  })
  return out
}

/**
 * The built-in password hash: `node:crypto` scrypt in the PHC string format
 * `$scrypt$ln=<ln>,r=<r>,p=<p>$<B64 salt>$<B64 key>` (standard base64 alphabet, no padding; 16-byte salt, 32-byte key).
 * Parsing is strict and the stored parameters are range-checked before any work, so a tampered row cannot make the
 * server allocate gigabytes.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

/** scrypt's cost parameters: N = 2^`ln`, block size `r`, parallelism `p`. */
export interface ScryptParams {
  ln: number
  r: number
  p: number
}

/** OWASP Password Storage Cheat Sheet, scrypt row: N = 2^17, r = 8, p = 1. */
export const DEFAULT_SCRYPT: Readonly<ScryptParams> = Object.freeze({ ln: 17, r: 8, p: 1 })

/** The accepted range of each parameter, inclusive (configuration and stored hashes alike). */
export const SCRYPT_RANGES: Readonly<Record<keyof ScryptParams, readonly [number, number]>> = {
  ln: [10, 22],
  r: [1, 32],
  p: [1, 16],
}

/** OWASP's equivalent scrypt rows as [ln, r, p]: a configuration below every one of them is weak. */
const OWASP_ROWS: ReadonlyArray<readonly [number, number, number]> = [
  [17, 8, 1],
  [16, 8, 2],
  [15, 8, 3],
  [14, 8, 5],
  [13, 8, 10],
]

const KEY_LENGTH = 32
const SALT_LENGTH = 16
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{22})\$([A-Za-z0-9+/]{43})$/

const b64 = (bytes: Buffer): string => bytes.toString("base64").replace(/=+$/, "")

/** Whether every parameter is an integer within {@link SCRYPT_RANGES}. */
export function scryptParamsInRange(params: ScryptParams): boolean {
  return (Object.keys(SCRYPT_RANGES) as Array<keyof ScryptParams>).every((name) => {
    const value = params[name]
    const [low, high] = SCRYPT_RANGES[name]
    return Number.isInteger(value) && value >= low && value <= high
  })
}

/** Whether the parameters are below every row of OWASP's scrypt table. */
export function isWeakScrypt(params: ScryptParams): boolean {
  return !OWASP_ROWS.some(([ln, r, p]) => params.ln >= ln && params.r >= r && params.p >= p)
}

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.ln
  return new Promise((resolve, reject) => {
    // Node refuses scrypt when about 128·N·r bytes exceed maxmem (32 MiB by default): always give it room.
    scrypt(password, salt, KEY_LENGTH, { N, r: params.r, p: params.p, maxmem: 256 * N * params.r }, (error, key) =>
      error ? reject(error) : resolve(key),
    )
  })
}

/**
 * Hashes an already normalised password with scrypt, a fresh 16-byte salt, and the given parameters.
 *
 * @example
 * ```ts
 * await scryptHash("correct horse", { ln: 17, r: 8, p: 1 }) // "$scrypt$ln=17,r=8,p=1$…$…"
 * ```
 */
export async function scryptHash(normalized: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_LENGTH)
  const key = await derive(normalized, salt, params)
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${b64(salt)}$${b64(key)}`
}

/** A stored scrypt PHC string, parsed; `null` when the string is not exactly the built-in format. */
export function parseScrypt(hash: string): { params: ScryptParams; salt: Buffer; key: Buffer } | null {
  const match = PHC.exec(hash)
  if (!match) return null
  const params = { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) }
  const salt = Buffer.from(match[4]!, "base64")
  const key = Buffer.from(match[5]!, "base64")
  // Canonical encodings only: the last character's unused bits must be zero.
  if (b64(salt) !== match[4] || b64(key) !== match[5]) return null
  return { params, salt, key }
}

/** Whether `hash` is the built-in format (it starts with `$scrypt$`). */
export const isScryptHash = (hash: string): boolean => hash.startsWith("$scrypt$")

/**
 * Verifies an already normalised password against a stored `$scrypt$` string, in constant time. A malformed string,
 * or parameters outside {@link SCRYPT_RANGES}, is `false` without computing anything.
 *
 * @example
 * ```ts
 * await scryptVerify("correct horse", stored) // true
 * ```
 */
export async function scryptVerify(normalized: string, hash: string): Promise<boolean> {
  const parsed = parseScrypt(hash)
  if (!parsed || !scryptParamsInRange(parsed.params)) return false
  const key = await derive(normalized, parsed.salt, parsed.params)
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key)
}

/** Whether a stored hash is the built-in format with exactly these parameters. */
export function hasScryptParams(hash: string, params: ScryptParams): boolean {
  const parsed = parseScrypt(hash)
  return (
    parsed !== null && parsed.params.ln === params.ln && parsed.params.r === params.r && parsed.params.p === params.p
  )
}

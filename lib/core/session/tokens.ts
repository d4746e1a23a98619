/**
 * Provider tokens kept for refresh: the record a session knows them by, the reserved JWT claim
 * `__gh.tok[<provider>]`, and sealing with purpose-derived keys (`gh1.` values at rest, the 60-second grace entries).
 */
import { createHash, hkdfSync } from "node:crypto"
import { compactDecrypt, CompactEncrypt } from "jose"
import type { ResolvedConfig } from "../kernel/config/types"
import type { Account, JWT } from "../kernel/types"
import { claimsOf } from "./claims"

/** One provider's tokens as a session keeps them: `at` access token, `rt` refresh token, `exp` seconds. */
export interface TokenRecord {
  at?: string
  rt?: string
  exp?: number
  scope?: string
  tt?: string
  /** `sub` and `azp` of the sign-in's ID token, for the continuity checks of a refreshed one. */
  sub?: string
  azp?: string
  /** The sign-in's DPoP private key (JWK) the tokens are bound to; inside the encrypted cookie only. */
  dk?: Record<string, unknown>
}

/** Purpose strings of the derived keys. */
export type SealPurpose = "gatehouse.token-at-rest" | "gatehouse.rt-grace" | "gatehouse.dpop-key"

/** Prefix of an encrypted token column. */
export const AT_REST_PREFIX = "gh1."

const keyCache = new Map<string, Uint8Array>()

function keyFor(secret: string, purpose: SealPurpose): Uint8Array {
  const id = `${purpose}\u0000${secret}`
  let key = keyCache.get(id)
  if (!key) {
    key = new Uint8Array(hkdfSync("sha256", secret, "", purpose, 32))
    if (keyCache.size > 50) keyCache.clear()
    keyCache.set(id, key)
  }
  return key
}

/**
 * Encrypts `value` (JWE compact, `dir` + `A256GCM`) with the key derived for `purpose` from the first secret.
 *
 * @example
 * ```ts
 * const sealed = await seal(config.secret, "gatehouse.rt-grace", JSON.stringify(record))
 * ```
 */
export async function seal(secrets: readonly string[], purpose: SealPurpose, value: string): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(value))
    .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
    .encrypt(keyFor(secrets[0], purpose))
}

/** Decrypts what {@link seal} wrote with any of `secrets` (rotation); `null` when none opens it. */
export async function unseal(secrets: readonly string[], purpose: SealPurpose, sealed: string): Promise<string | null> {
  for (const secret of secrets) {
    try {
      const { plaintext } = await compactDecrypt(sealed, keyFor(secret, purpose), {
        keyManagementAlgorithms: ["dir"],
        contentEncryptionAlgorithms: ["A256GCM"],
      })
      return new TextDecoder().decode(plaintext)
    } catch {
      // the next secret
    }
  }
  return null
}

/** A token column as stored: `gh1.<JWE>` when encrypting at rest, else the plain value. */
export async function tokenAtRest(secrets: readonly string[], value: string, encrypt: boolean): Promise<string> {
  return encrypt ? AT_REST_PREFIX + (await seal(secrets, "gatehouse.token-at-rest", value)) : value
}

/** A stored token column read back: `gh1.` values decrypted (any secret), plain ones (Auth.js rows) as they are. */
export async function tokenFromRest(secrets: readonly string[], value: unknown): Promise<string | undefined> {
  if (typeof value !== "string" || value === "") return undefined
  if (!value.startsWith(AT_REST_PREFIX)) return value
  return (await unseal(secrets, "gatehouse.token-at-rest", value.slice(AT_REST_PREFIX.length))) ?? undefined
}

/** A DPoP private key as an account row stores it: always sealed (`gh1.`), whatever `encryptAtRest` says. */
export async function dpopKeyAtRest(secrets: readonly string[], jwk: Record<string, unknown>): Promise<string> {
  return AT_REST_PREFIX + (await seal(secrets, "gatehouse.dpop-key", JSON.stringify(jwk)))
}

/** A stored DPoP key read back (any secret); `null` when it does not open or parse, `undefined` when there is none. */
export async function dpopKeyFromRest(
  secrets: readonly string[],
  value: unknown,
): Promise<Record<string, unknown> | null | undefined> {
  if (value === undefined || value === null || value === "") return undefined
  if (typeof value !== "string" || !value.startsWith(AT_REST_PREFIX)) return null
  const opened = await unseal(secrets, "gatehouse.dpop-key", value.slice(AT_REST_PREFIX.length))
  try {
    const jwk = opened === null ? null : (JSON.parse(opened) as unknown)
    return jwk && typeof jwk === "object" && typeof (jwk as { d?: unknown }).d === "string"
      ? (jwk as Record<string, unknown>)
      : null
  } catch {
    return null
  }
}

/**
 * The record of `provider`'s tokens in a session JWT, if it carries a well-formed one.
 *
 * @example
 * ```ts
 * tokenRecordOf(payload, "corp")?.rt
 * ```
 */
export function tokenRecordOf(token: JWT | null | undefined, provider: string): TokenRecord | undefined {
  const tok = claimsOf(token)?.tok
  if (!tok || typeof tok !== "object") return undefined
  const record = (tok as Record<string, unknown>)[provider]
  if (!record || typeof record !== "object") return undefined
  return record as TokenRecord
}

/** The providers whose tokens a session JWT carries. */
export function tokenProvidersOf(token: JWT | null | undefined): string[] {
  const tok = claimsOf(token)?.tok
  return tok && typeof tok === "object" ? Object.keys(tok) : []
}

/** `token` with `provider`'s record replaced (or removed, with `undefined`) and the refresh error flag set or not. */
export function withTokenRecord(
  token: JWT,
  provider: string,
  record: TokenRecord | undefined,
  refreshError?: boolean,
): JWT {
  const claims = { ...claimsOf(token) }
  const tok = { ...(claims.tok as Record<string, TokenRecord> | undefined) }
  if (record) tok[provider] = record
  else delete tok[provider]
  claims.tok = tok
  if (refreshError) claims.rte = 1
  else if (refreshError === false) delete claims.rte
  return { ...token, __gh: claims }
}

/** Whether a session JWT carries the "refresh failed, sign in again" flag. */
export function hasRefreshError(token: JWT | null | undefined): boolean {
  return claimsOf(token)?.rte === 1
}

/**
 * The record of the tokens a sign-in received (from the account the OAuth callback built).
 *
 * @example
 * ```ts
 * recordFromAccount(account, subjectOfIdToken(account.id_token))
 * ```
 */
export function recordFromAccount(account: Partial<Account>, subject: { sub?: string; azp?: string }): TokenRecord {
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined)
  const record: TokenRecord = {
    at: str(account.access_token),
    rt: str(account.refresh_token),
    exp: typeof account.expires_at === "number" ? account.expires_at : undefined,
    scope: str(account.scope),
    tt: str(account.token_type),
    sub: subject.sub,
    azp: subject.azp,
  }
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as TokenRecord
}

/** SHA-256 hex of a value (store keys never hold a token or a user id in clear). */
export function sha256(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex")
}

/** Store key of the pointer from a user to their account at a provider (database sessions). */
export const accountPointerKey = (provider: string, userId: string) => `rt-acct:${provider}:${sha256(userId)}`
/** Store key of "this user's refresh failed at" (ms), compared with a database session's `createdAt`. */
export const refreshErrorKey = (userId: string) => `rt-err:${sha256(userId)}`

/**
 * Whether a database session of `userId` that began at `createdAt` carries the refresh error: the user's provider
 * refused a refresh token after the session began. Read only when a provider refreshes; a store failure reads as no.
 *
 * @example
 * ```ts
 * if (await databaseRefreshError(config, user.id, session.createdAt)) result.error = "RefreshTokenError"
 * ```
 */
export async function databaseRefreshError(
  config: ResolvedConfig,
  userId: string,
  createdAt: Date | null | undefined,
): Promise<boolean> {
  if (!config.providers.some((p) => "refresh" in p && p.refresh)) return false
  try {
    const [value] = await config.store.get([refreshErrorKey(userId)])
    if (value === null || value === undefined) return false
    return !(createdAt instanceof Date) || Number(value) >= createdAt.valueOf()
  } catch (error) {
    config.logger.error(error as Error)
    return false
  }
}

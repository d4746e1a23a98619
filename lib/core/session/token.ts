/**
 * Database session tokens at rest: rows store `sha256:<hex>` of the cookie's token, never the token. Rows written
 * raw (by Auth.js, before the migration) are still found through a legacy lookup by the raw value, which is never
 * tried for a cookie that itself has the hash shape: a leaked table of hashes cannot be replayed as cookies.
 */
import { createHash } from "node:crypto"
import type { AdapterSession, AdapterUser, SessionAdapter } from "../../storage/adapter"

const HASHED = /^sha256:[0-9a-f]{64}$/

/**
 * The key a session row is stored under for a cookie token: `sha256:` + the hex SHA-256 of the token.
 *
 * @example
 * ```ts
 * hashSessionToken("abc") // "sha256:ba7816bf…"
 * ```
 */
export function hashSessionToken(token: string): string {
  return `sha256:${createHash("sha256").update(token, "utf8").digest("hex")}`
}

/** Whether a cookie value may name a raw (pre-hashing) row: anything that is not itself a stored hash. */
function legacyAllowed(token: string): boolean {
  return !HASHED.test(token)
}

/**
 * The session and user behind a cookie token; `session.sessionToken` is the key the row is stored under (the hash,
 * or the raw token of a legacy row), which is what later updates and deletes use.
 *
 * @example
 * ```ts
 * const found = await findSessionByCookie(adapter, cookieValue)
 * ```
 */
export async function findSessionByCookie(
  adapter: Pick<SessionAdapter, "getSessionAndUser">,
  token: string,
): Promise<{ session: AdapterSession; user: AdapterUser } | null> {
  const found = await adapter.getSessionAndUser(hashSessionToken(token))
  if (found || !legacyAllowed(token)) return found ?? null
  return (await adapter.getSessionAndUser(token)) ?? null
}

/**
 * Deletes the row behind a cookie token (hashed, else legacy raw) and returns what the adapter returned.
 *
 * @example
 * ```ts
 * const deleted = await deleteSessionByCookie(adapter, cookieValue)
 * ```
 */
export async function deleteSessionByCookie(
  adapter: Pick<SessionAdapter, "deleteSession">,
  token: string,
): Promise<AdapterSession | null | undefined | void> {
  const deleted = await adapter.deleteSession(hashSessionToken(token))
  if (deleted || !legacyAllowed(token)) return deleted
  return adapter.deleteSession(token)
}

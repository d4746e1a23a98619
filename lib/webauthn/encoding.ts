/** Credential-id encodings and the stored-authenticator operations of the WebAuthn flows. */
import type { AdapterAuthenticator, AuthenticatorAdapter } from "../storage/adapter"

/** Standard base64 (with `+`, `/`, `=`) of a base64url or base64 credential id: how Auth.js stores them. */
export function toStandardBase64(id: string): string {
  return Buffer.from(id, "base64url").toString("base64")
}

/** base64url (no padding) of a stored credential id in either encoding: how browsers and options carry them. */
export function toBase64Url(id: string): string {
  return Buffer.from(id.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("base64url")
}

const BASE64URL = /^[A-Za-z0-9_-]+$/

/**
 * Finds the authenticator of a browser-reported id: first in standard base64 (Auth.js rows, and ours), then as given
 * when it is base64url (rows written by tools that store base64url).
 *
 * @example
 * ```ts
 * const stored = await findAuthenticator(adapter, response.id)
 * ```
 */
export async function findAuthenticator(
  adapter: Pick<AuthenticatorAdapter, "getAuthenticator">,
  id: string,
): Promise<AdapterAuthenticator | null> {
  if (!BASE64URL.test(id) || id.length > 1400) return null
  const standard = toStandardBase64(id)
  return (await adapter.getAuthenticator(standard)) ?? (standard === id ? null : await adapter.getAuthenticator(id))
}

/** The descriptors of a user's credentials for `allowCredentials`/`excludeCredentials` (at most `limit`). */
export function descriptors(
  authenticators: AdapterAuthenticator[],
  limit = 100,
): Array<{ id: string; transports?: AuthenticatorTransportFuture[] }> {
  return authenticators.slice(0, limit).map((a) => {
    const transports = a.transports ? (a.transports.split(",").filter(Boolean) as AuthenticatorTransportFuture[]) : []
    return transports.length > 0 ? { id: toBase64Url(a.credentialID), transports } : { id: toBase64Url(a.credentialID) }
  })
}

/** The transports @simplewebauthn/server knows. */
export type AuthenticatorTransportFuture = "ble" | "cable" | "hybrid" | "internal" | "nfc" | "smart-card" | "usb"

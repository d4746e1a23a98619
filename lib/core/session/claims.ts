/**
 * Gatehouse's reserved claim `__gh` inside a JWT session: `se`, the session epoch (milliseconds, set at sign-in and
 * copied unchanged on every re-issue, compared with the user's "sign out everywhere" watermark) and `at`, the sign-in
 * time in seconds (for freshness). It survives the `jwt` callback unless the callback sets `__gh: null`.
 */
import type { JWT } from "../kernel/types"

/** The reserved claim. */
export interface GatehouseClaims {
  /** Session epoch: milliseconds, set at sign-in, never refreshed by a re-issue. */
  se?: number
  /** Sign-in time, in seconds. */
  at?: number
  [key: string]: unknown
}

/** The reserved claim of a token, if it carries one. */
export function claimsOf(token: JWT | null | undefined): GatehouseClaims | undefined {
  const claims = (token as { __gh?: unknown } | null | undefined)?.__gh
  return claims !== null && typeof claims === "object" ? (claims as GatehouseClaims) : undefined
}

/** `token` with fresh sign-in claims: epoch and sign-in time are now. */
export function withSignInClaims(token: JWT, nowMs = Date.now()): JWT {
  return { ...token, __gh: { ...claimsOf(token), se: nowMs, at: Math.floor(nowMs / 1000) } }
}

/** What the `jwt` callback returned, with the claim of the token it was given put back unless it set `__gh: null`. */
export function keepClaims(before: JWT, after: JWT): JWT {
  if ("__gh" in after) {
    if (after.__gh === null) {
      const { __gh: _dropped, ...rest } = after
      return rest as JWT
    }
    return after
  }
  const claims = claimsOf(before)
  return claims ? { ...after, __gh: claims } : after
}

/** The user's "signed out everywhere before" watermark key in the store. */
export function sessionWatermarkKey(userId: string): string {
  return `sess-nbf:${userId}`
}

/**
 * The key marking one JWT session of a user as revoked: its owner ended it by id (session management), so every copy
 * of its cookie is refused although the user's other sessions live on. Keyed by the session epoch, which no re-issue
 * changes.
 */
export function sessionEndKey(userId: string, epoch: number): string {
  return `sess-end:${userId}:${epoch}`
}

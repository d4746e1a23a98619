/**
 * Gatehouse's reserved claim `__gh` inside a JWT session: `se`, the session epoch (milliseconds, set at sign-in and
 * copied unchanged on every re-issue, compared with the user's "sign out everywhere" watermark) and `at`, the sign-in
 * time in seconds (for freshness). It survives the `jwt` callback unless the callback sets `__gh: null`.
 */
import { createHash } from "node:crypto"
import type { JWT } from "../kernel/types"
import { withKeys } from "../../with-keys"

/** The reserved claim. */
export interface GatehouseClaims {
  /** Session epoch: milliseconds, set at sign-in, never refreshed by a re-issue. */
  se?: number
  /** Sign-in time, in seconds. */
  at?: number
  /** An impersonation session: the id of the admin who started it (accounts.md §3.5). */
  imp?: string
  /** An impersonation session's hard expiry, seconds: no re-issue moves `exp` past it. */
  ie?: number
  [key: string]: unknown
}

/** The reserved claim of a token, if it carries one. */
export function claimsOf(token: JWT | null | undefined): GatehouseClaims | undefined {
  const claims = (token as { __gh?: unknown } | null | undefined)?.__gh
  return claims !== null && typeof claims === "object" ? (claims as GatehouseClaims) : undefined
}

/** `token` with fresh sign-in claims: epoch and sign-in time are now. */
export function withSignInClaims(token: JWT, nowMs = Date.now()): JWT {
  return withKeys(token, { __gh: withKeys(claimsOf(token) ?? {}, { se: nowMs, at: Math.floor(nowMs / 1000) }) })
}

/**
 * What the `jwt` callback returned, with the claim of the token it was given put back unless it set `__gh: null`. The
 * claim of an impersonation session is always put back, with its marks (`imp`, `ie`) and epoch unchanged, whatever the
 * callback returned: an app cannot turn an impersonation session into a normal one by accident.
 */
export function keepClaims(before: JWT, after: JWT): JWT {
  const claims = claimsOf(before)
  if (claims && typeof claims.imp === "string") {
    return { ...after, __gh: { ...claims, ...claimsOf(after), se: claims.se, imp: claims.imp, ie: claims.ie } }
  }
  if ("__gh" in after) {
    if (after.__gh === null) {
      const { __gh: _dropped, ...rest } = after
      return rest as JWT
    }
    return after
  }
  return claims ? withKeys(after, { __gh: claims }) : after
}

/** The impersonation marks of a token: the admin id and the hard expiry (seconds), or `undefined`. */
export function impersonationOf(token: JWT | null | undefined): { by: string; until: number } | undefined {
  const claims = claimsOf(token)
  if (typeof claims?.imp !== "string") return undefined
  // A mark without a usable expiry ends at once: it is never read as a session without a cap.
  return { by: claims.imp, until: typeof claims.ie === "number" && Number.isFinite(claims.ie) ? claims.ie : 0 }
}

/**
 * The user's "signed out everywhere before" watermark key in the store (tokens.md §5: no key holds a raw user id):
 * `sess-nbf:<h>` with `h = base64url(SHA-256(sub))`. Its value is the time of the sign-out in milliseconds; a JWT whose
 * session epoch `__gh.se` is below it is refused.
 *
 * @example
 * ```ts
 * sessionWatermarkKey("u-1") // "sess-nbf:…" (43 characters after the prefix)
 * ```
 */
export function sessionWatermarkKey(userId: string): string {
  return `sess-nbf:${createHash("sha256").update(userId).digest("base64url")}`
}

/**
 * The old form of {@link sessionWatermarkKey}, `sess-nbf:<sub>`, which held the raw user id. Nothing writes it any
 * more; the door still reads it, so a sign-out everywhere made before the upgrade keeps the user's older sessions ended
 * for the rest of its TTL (`session.maxAge`). Remove once every deployment has run the new form for `session.maxAge`.
 */
export function legacySessionWatermarkKey(userId: string): string {
  return `sess-nbf:${userId}`
}

/**
 * The key marking one JWT session of a user as ended (tokens.md §1.6, §5): its owner ended it by id, a bearer
 * sign-out, a native code reuse, or a stopped impersonation, so every copy of its token is refused although the user's
 * other sessions live on. `sess-end:<h>` with `h = base64url(SHA-256(sub + "|" + se))`: keyed by the session epoch,
 * which no re-issue changes, and holding no raw user id.
 *
 * @example
 * ```ts
 * sessionEndKey("u-1", 1767225600000) // "sess-end:3q2-…" (43 characters after the prefix)
 * ```
 */
export function sessionEndKey(userId: string, epoch: number): string {
  return `sess-end:${createHash("sha256").update(`${userId}|${epoch}`).digest("base64url")}`
}

/**
 * The old form of {@link sessionEndKey}, `sess-end:<sub>:<se>`, which held the raw user id. Nothing writes it any more;
 * the door still reads it, so a mark written before the upgrade keeps its session ended for the rest of its TTL
 * (`session.maxAge`). Remove once every deployment has run the new form for `session.maxAge`.
 */
export function legacySessionEndKey(userId: string, epoch: number): string {
  return `sess-end:${userId}:${epoch}`
}

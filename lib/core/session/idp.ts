/**
 * The OIDC sign-in record of a session and the back-channel revocation markers JWT sessions are checked
 * against. Store keys hold hashes, never a raw `sid`/`sub` (C.2 rule 4), and are scoped by provider id (rule 5).
 */
import { createHash } from "node:crypto"
import type { IdpRecord } from "../../oauth"
import { storedInteger } from "../../storage/kv"
import type { JWT } from "../kernel/types"

const hash = (value: string) => createHash("sha256").update(value).digest("hex")

/** Store key of the marker "the OP ended session `sid` of provider `p`". */
export const sidMarkerKey = (p: string, sid: string) => `bcl-sid:${p}:${hash(sid)}`
/** Store key of the watermark "sessions of `sub` at provider `p` that signed in at or before this time are ended". */
export const subWatermarkKey = (p: string, sub: string) => `bcl-sub:${p}:${hash(sub)}`
/** Store key of a logout token's `jti` (single use). */
export const jtiKey = (p: string, jti: string) => `bcl-jti:${p}:${hash(jti)}`

/** The reserved claim holding Gatehouse data inside the session JWT. */
export const RESERVED_CLAIM = "__gh"

/** The `idp` record inside a session JWT, when it carries a well-formed one. */
export function idpOfToken(token: JWT | null | undefined): IdpRecord | undefined {
  const reserved = token?.[RESERVED_CLAIM]
  if (!reserved || typeof reserved !== "object") return undefined
  const idp = (reserved as { idp?: unknown }).idp as Partial<IdpRecord> | undefined
  if (!idp || typeof idp.p !== "string" || typeof idp.sub !== "string" || typeof idp.at !== "number") return undefined
  return idp as IdpRecord
}

/** `token` without the reserved claim (what the `session` callback sees). */
export function withoutReserved(token: JWT): JWT {
  const { [RESERVED_CLAIM]: _reserved, ...rest } = token
  return rest as JWT
}

/** The store keys {@link endedByMarkers} reads for this record, in its order. */
export function idpMarkerKeys(idp: IdpRecord): string[] {
  return idp.sid ? [subWatermarkKey(idp.p, idp.sub), sidMarkerKey(idp.p, idp.sid)] : [subWatermarkKey(idp.p, idp.sub)]
}

/**
 * Whether the OP ended the session this record belongs to, from the values of {@link idpMarkerKeys}: a `sid` marker,
 * or a `sub` watermark at or after the sign-in's auth time (a later sign-in has a larger `at` and stays valid).
 *
 * @example
 * ```ts
 * endedByMarkers(idp, await store.get(idpMarkerKeys(idp)))
 * ```
 */
export function endedByMarkers(idp: IdpRecord, values: ReadonlyArray<string | null | undefined>): boolean {
  const [watermark, sidMarker] = values
  if (idp.sid && sidMarker !== undefined && sidMarker !== null) return true
  const mark = storedInteger(watermark)
  return mark !== null && mark >= idp.at
}

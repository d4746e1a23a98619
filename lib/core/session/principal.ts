/**
 * The one door: who is signed in on this request. Only this module reads the session cookie to answer that question,
 * by strategy, with every rule that can end a session applied: expiry, the user's "sign out everywhere" watermark, a
 * revoked single session, the OP's back-channel markers, and the adapter's row. Every reader of the user (the session
 * read, account linking, passkeys, session management, refresh, sign-out) takes its answer; none decodes a cookie.
 * The answer is memoised per request.
 */
import type { AdapterSession, AdapterUser } from "../../storage/adapter"
import { MAX_KEY_LENGTH } from "../../storage/kv"
import { AdapterError, JWTSessionError, SessionTokenError } from "../../errors"
import { adapterError } from "../kernel/config/adapter"
import { readSessionCookie, type StoredSessionCookie } from "../../cookie-header"
import type { JWT } from "../kernel/types"
import {
  claimsOf,
  impersonationOf,
  legacySessionEndKey,
  legacySessionWatermarkKey,
  sessionEndKey,
  sessionWatermarkKey,
} from "./claims"
import { store } from "../kernel/config/stores"
import { decode as builtinDecode } from "../../jwt"
import { decodeOrThrow } from "../../jwt/decode"
import { endedByMarkers, idpMarkerKeys, idpOfToken } from "./idp"
import { findSessionByCookie } from "./token"
import type { DatabasePrincipal, JwtPrincipal, Principal, PrincipalResult, SessionContext } from "./types"

export type {
  DatabasePrincipal,
  JwtPrincipal,
  NoPrincipalReason,
  Principal,
  PrincipalMemo,
  PrincipalResult,
} from "./types"

/**
 * Decode failures that happen in normal use, logged at debug level with a short reason instead of as an error: a
 * cookie from before a secret change (often the random development secret of an earlier run), or one past its expiry.
 */
const expectedDecodeFailures: Readonly<Record<string, string>> = {
  "no matching decryption secret":
    "it was sealed with another secret (an old one, or the random development secret of an earlier run)",
  "token expired": "it has expired",
}

/**
 * Who is signed in on the request of `ctx`, memoised on `ctx.memo`: `{ ok: true, principal }`, or `{ ok: false,
 * reason }` with a closed set of reasons. It never throws and writes no cookie: the readers decide what a reason means
 * for their answer (the session read clears a bad cookie; a management call answers "unauthenticated").
 *
 * @example
 * ```ts
 * const result = await currentPrincipal(sessionContext(ctx))
 * if (!result.ok) return { status: 401, body: { error: "Unauthorized" } }
 * const { userId } = result.principal
 * ```
 */
export function currentPrincipal(ctx: SessionContext): Promise<PrincipalResult> {
  const memo = ctx.memo
  if (memo?.principal) return memo.principal
  const pending = ctx.config.session.strategy === "jwt" ? jwtPrincipal(ctx) : databasePrincipal(ctx)
  if (memo) memo.principal = pending
  return pending
}

/** Forgets the memoised answer (after this request's own session was revoked, so later readers see it gone). */
export function forgetPrincipal(ctx: SessionContext): void {
  if (ctx.memo) {
    ctx.memo.principal = undefined
    ctx.memo.impersonator = undefined
  }
}

/** The admin id an impersonation session carries (JWT claim `__gh.imp`, database row `impersonatedBy`). */
export function impersonatorOf(principal: Principal): string | undefined {
  if (principal.strategy === "database") {
    const by = principal.session.impersonatedBy
    return typeof by === "string" && by !== "" ? by : undefined
  }
  return impersonationOf(principal.token)?.by
}

/** The answer for a principal, remembering on the memo who impersonates it (the audit's `actorId`). */
function accepted(ctx: SessionContext, principal: Principal, cookie: PrincipalResult["cookie"]): PrincipalResult {
  const by = impersonatorOf(principal)
  if (ctx.memo && by !== undefined) ctx.memo.impersonator = by
  return { ok: true, principal, cookie }
}

/**
 * The signed-in user as the adapter stores them: the database principal's user, or the JWT principal's `sub` looked
 * up through a feature view that has `getUser` (OAuth, WebAuthn or credentials). `null` when no one is signed in, the
 * token has no `sub`, the config has no adapter, or the user no longer exists.
 *
 * @example
 * ```ts
 * const user = await signedInUser(sessionContext(ctx))
 * ```
 */
export async function signedInUser(ctx: SessionContext): Promise<AdapterUser | null> {
  const result = await currentPrincipal(ctx)
  if (!result.ok) return null
  const { principal } = result
  if (principal.strategy === "database") return principal.user
  const { stores } = ctx.config
  const adapter = stores.oauth ?? stores.webauthn ?? stores.credentials
  if (!adapter || principal.userId === undefined) return null
  return (await adapter.getUser(principal.userId)) ?? null
}

/** Nothing of the cookie is read, refreshed or cleared for a request that carries a bearer (T1.3 rule 2). */
const NO_COOKIE: StoredSessionCookie = Object.freeze({ value: undefined, present: [] as string[] })

/**
 * The session credential of the request: its bearer when it carries one where one counts (T1.3: the bearer decides,
 * and a malformed one never falls back to the cookie), else the session cookie.
 */
function credentialOf(ctx: SessionContext): {
  value: string | undefined
  cookie: StoredSessionCookie
  bearer: boolean
} {
  if (ctx.bearer) return { value: ctx.bearer.token ?? undefined, cookie: NO_COOKIE, bearer: true }
  const cookie = readSessionCookie(ctx.requestCookies, ctx.cookies.sessionToken.name)
  return { value: cookie.value, cookie, bearer: false }
}

async function jwtPrincipal(ctx: SessionContext): Promise<PrincipalResult> {
  const { config } = ctx
  const { value, cookie, bearer } = credentialOf(ctx)
  if (!value) return { ok: false, reason: bearer ? "invalid" : "none", cookie }
  let token: JWT
  try {
    const decoded = decodeSessionToken(ctx, value)
    // A cached payload comes back at once: no wait on the hot path.
    token = decoded instanceof Promise ? await decoded : decoded
  } catch (error) {
    const reason = expectedDecodeFailures[(error as Error).message]
    if (reason === undefined) {
      config.logger.error(new JWTSessionError("The JWT session could not be read", { cause: error as Error }))
    } else config.logger.debug(`session cookie ignored: ${reason}`)
    return { ok: false, reason: reason === "it has expired" ? "expired" : "invalid", cookie }
  }
  // An impersonation session ends at its hard expiry, whatever its `exp` says (accounts.md §3.5).
  const impersonation = impersonationOf(token)
  if (impersonation && impersonation.until <= Math.floor(Date.now() / 1000)) {
    config.logger.debug("session cookie ignored: the impersonation session has ended")
    // With the token: stopping or signing out names the impersonation that expired (`impersonation.stopped`).
    return { ok: false, reason: "expired", cookie, token }
  }
  // Whether the session was ended elsewhere: one store round trip (none for a token without marks to look up).
  const marks = markerKeysOf(token)
  if (marks.all.length > 0) {
    let values: Array<string | null>
    try {
      values = await config.store.get(marks.all)
    } catch (error) {
      const coded = error instanceof AdapterError ? error : adapterError("store.get", error)
      config.logger.error(new JWTSessionError("The JWT session could not be read", { cause: coded }))
      return { ok: false, reason: "error", cookie, error: coded }
    }
    const ended = endedBy(marks, values)
    if (ended !== undefined) return { ok: false, reason: ended, cookie, token }
  }
  const sub = typeof token.sub === "string" && token.sub !== "" ? token.sub : undefined
  const at = claimsOf(token)?.at
  const principal: JwtPrincipal = {
    strategy: "jwt",
    userId: sub,
    token,
    authTime: typeof at === "number" ? at : undefined,
  }
  return accepted(ctx, principal, cookie)
}

/**
 * Whether the session of a token was ended elsewhere, from the store's values for its {@link markerKeysOf} keys:
 * `revoked` when the user signed out everywhere after it began (its epoch `__gh.se`, 0 for tokens issued before epochs
 * existed, is below the `sess-nbf:<h(sub)>` watermark, or the old `sess-nbf:<sub>`) or this one session was ended
 * (`sess-end:<h(sub|se)>`, or the old `sess-end:<sub>:<se>`); `backchannel` when its OP ended it (a `sid` marker, or a
 * `sub` watermark at or after its auth time); `undefined` when it goes on.
 */
function endedBy(marks: MarkerKeys, values: readonly (string | null)[]): "revoked" | "backchannel" | undefined {
  const { own, idp, epoch } = marks
  if (own > 0) {
    const since = typeof epoch === "number" ? epoch : 0
    for (let i = 0; i < WATERMARKS; i++) {
      const watermark = values[i] ?? null
      if (watermark !== null && since < Number(watermark)) return "revoked"
    }
    for (let i = WATERMARKS; i < own; i++) {
      if (values[i] !== null && values[i] !== undefined) return "revoked"
    }
  }
  return idp && endedByMarkers(idp, values.slice(own)) ? "backchannel" : undefined
}

/** How many of a token's own marks are watermarks: the form of {@link sessionWatermarkKey} and the old one, first. */
const WATERMARKS = 2

interface MarkerKeys {
  /** How many of `all` are the user's own marks (the watermarks, then the end mark in its form and the old one). */
  own: number
  all: readonly string[]
  idp: ReturnType<typeof idpOfToken>
  epoch: unknown
}

/**
 * The store keys that say whether a token's session was ended elsewhere. Kept per decoded payload: the session cache
 * hands the same payload object to every read of the same cookie, so the marks' hashes are not computed per request.
 */
const markerKeys = new WeakMap<JWT, MarkerKeys>()

function markerKeysOf(token: JWT): MarkerKeys {
  const known = markerKeys.get(token)
  if (known) return known
  const sub = typeof token.sub === "string" && token.sub !== "" ? token.sub : undefined
  const epoch = claimsOf(token)?.se
  const idp = idpOfToken(token)
  // Each mark in its form and in the old one (marks written before the upgrade live out their TTL). An old-form key
  // longer than a store key may be was never written (the store refused it): its place reads the new form again, so
  // a long user id does not make every read of its sessions fail.
  const old = (legacy: string, current: string) => (legacy.length <= MAX_KEY_LENGTH ? legacy : current)
  const own: string[] = []
  if (sub !== undefined) {
    const watermark = sessionWatermarkKey(sub)
    own.push(watermark, old(legacySessionWatermarkKey(sub), watermark))
    if (typeof epoch === "number") {
      const end = sessionEndKey(sub, epoch)
      own.push(end, old(legacySessionEndKey(sub, epoch), end))
    }
  }
  // Frozen: a store given the same array on every read cannot change it for the next one.
  const all = Object.freeze([...own, ...(idp ? idpMarkerKeys(idp) : [])])
  const keys = { own: own.length, all, idp, epoch }
  markerKeys.set(token, keys)
  return keys
}

async function databasePrincipal(ctx: SessionContext): Promise<PrincipalResult> {
  const { config } = ctx
  const { value, cookie, bearer } = credentialOf(ctx)
  if (!value) return { ok: false, reason: bearer ? "invalid" : "none", cookie }
  let found: { session: AdapterSession; user: AdapterUser } | null
  try {
    found = await findSessionByCookie(store(config, "sessions"), value)
  } catch (error) {
    // An adapter failure was logged once already, by the adapter wrapper.
    if (!(error instanceof AdapterError)) {
      config.logger.error(new SessionTokenError("The database session could not be read", { cause: error as Error }))
    }
    return { ok: false, reason: "error", cookie, error }
  }
  if (!found) return { ok: false, reason: "invalid", cookie }
  if (new Date(found.session.expires).valueOf() < Date.now()) {
    return { ok: false, reason: "expired", cookie, session: found.session }
  }
  const created = found.session.createdAt
  const principal: DatabasePrincipal = {
    strategy: "database",
    userId: found.user.id,
    user: found.user,
    session: found.session,
    authTime: created ? Math.floor(new Date(created).valueOf() / 1000) : undefined,
  }
  return accepted(ctx, principal, cookie)
}

/**
 * Decodes a session token with the config's decoder; the built-in one goes through the runtime's cache of decrypted
 * payloads (by exact cookie value, never past `exp`), and a cached payload is answered at once. Throws (or rejects)
 * when it does not decode.
 */
function decodeSessionToken(ctx: SessionContext, token: string): JWT | Promise<JWT> {
  const { config } = ctx
  const salt = ctx.cookies.sessionToken.name
  if (config.jwt.decode !== builtinDecode) {
    return Promise.resolve(config.jwt.decode({ token, secret: config.secret, salt })).then(present)
  }
  const cached = ctx.sessionCache?.get(token, Math.floor(Date.now() / 1000))
  if (cached) return cached
  return decodeOrThrow({ token, secret: config.secret, salt }).then((payload) => {
    const decoded = present(payload)
    ctx.sessionCache?.set(token, decoded)
    return decoded
  })
}

function present(payload: JWT | null | undefined): JWT {
  if (!payload) throw new Error("Invalid JWT")
  return payload
}

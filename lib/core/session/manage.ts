/**
 * Session management (users see and end their sessions): public session ids, listing, revoking one, the others or
 * all, admin revocation of a user, and freshness. Database sessions are rows; JWT sessions are revoked through the
 * user's watermark `sess-nbf:<h(userId)>` in the key-value store, compared with each token's session epoch.
 */
import { revokeTrust } from "./two-factor/trust"
import { createHash } from "node:crypto"
import { constantTimeEqual } from "../kernel/secrets"
import type { AdapterSession, SessionManagementAdapter } from "../../storage/adapter"
import { MissingAdapterMethods } from "../../errors"
import type { ResolvedConfig } from "../kernel/config/types"
import { clearSessionCookie } from "../kernel/cookies/session-store"
import type { JWT } from "../kernel/types"
import { claimsOf, impersonationOf, sessionEndKey } from "./claims"
import { writeJwtSession } from "./jwt"
import { currentPrincipal, forgetPrincipal, type DatabasePrincipal } from "./principal"
import { deleteRows, raiseWatermark } from "./revoke"
import type { SessionContext } from "./types"
import { recordAudit, type RevocationReason } from "../kernel/audit"

export { deleteUser, revokeUserSessions } from "./revoke"

/** The audit event of a revocation the user made themselves (`count`: sessions ended, when known). */
const audited = (ctx: SessionContext, userId: string, count?: number, reason: RevocationReason = "self") =>
  recordAudit(ctx, { type: "session.revoked", userId, reason, details: { count } })

/** One session as its owner sees it. Times are seconds since the epoch; there is never a token in it. */
export interface SessionInfo {
  /** 22 characters, derived one-way from the stored session key; `"jwt"` for a JWT session. */
  id: string
  /** Whether this is the session of the request. */
  current: boolean
  createdAt?: number
  lastActiveAt?: number
  /** Seconds since the epoch. */
  expires: number
  userAgent?: string
  ip?: string
  /** Present (`true`) only on an impersonation session: an admin acting as this user (accounts.md §3.5). */
  impersonated?: true
}

/** What a revocation found. */
export type RevokeOutcome = "revoked" | "not-found" | "unauthenticated"

/** The most sessions `listSessions` returns. */
export const MAX_LISTED_SESSIONS = 100

/**
 * The public id of a session: base64url(SHA-256("gatehouse.session-id" || stored key)), first 22 characters (132
 * bits). The stored key is the token's hash (or the raw token of a legacy row), so the id reveals neither.
 *
 * @example
 * ```ts
 * publicSessionId("sha256:9f86d0…") // "q2m1…" (22 characters)
 * ```
 */
export function publicSessionId(storedKey: string): string {
  return createHash("sha256").update("gatehouse.session-id").update(storedKey).digest("base64url").slice(0, 22)
}

const sameId = constantTimeEqual

const seconds = (date: Date | null | undefined): number | undefined =>
  date ? Math.floor(new Date(date).valueOf() / 1000) : undefined

function managementAdapter(config: ResolvedConfig): Pick<SessionManagementAdapter, "listSessionsByUserId"> {
  const listSessionsByUserId = config.stores.management?.listSessionsByUserId
  if (typeof listSessionsByUserId !== "function") {
    throw new MissingAdapterMethods("Session management needs the adapter method listSessionsByUserId", {
      cause: { missing: ["listSessionsByUserId"] },
    })
  }
  return { listSessionsByUserId }
}

/** The valid JWT session of the request with a user id, or null. Runs no callback. */
async function currentJwt(ctx: SessionContext): Promise<JWT | null> {
  const door = await currentPrincipal(ctx)
  if (!door.ok || door.principal.strategy !== "jwt" || door.principal.userId === undefined) return null
  return door.principal.token
}

/** The valid database session of the request (its row and user), or null. */
async function currentDatabaseUser(ctx: SessionContext): Promise<DatabasePrincipal | null> {
  const door = await currentPrincipal(ctx)
  return door.ok && door.principal.strategy === "database" ? door.principal : null
}

async function liveSessionsOf(config: ResolvedConfig, userId: string): Promise<AdapterSession[]> {
  const now = Date.now()
  const rows = await managementAdapter(config).listSessionsByUserId(userId)
  return rows.filter((row) => new Date(row.expires).valueOf() > now)
}

/** Clears the request's session cookie (every chunk it carried), and forgets it as the request's principal. */
async function clearCurrent(ctx: SessionContext): Promise<void> {
  const { cookie } = await currentPrincipal(ctx)
  clearSessionCookie(ctx.jar, cookie.present, ctx.cookies.sessionToken.options)
  forgetPrincipal(ctx)
}

/**
 * The sessions of the request's user, newest first (at most 100), or null without a valid session. JWT strategy:
 * only the current one (stateless), with the id `"jwt"`.
 *
 * @example
 * ```ts
 * const sessions = await listSessions(ctx) // [{ id: "Zk3…", current: true, expires: 1767225600, … }]
 * ```
 */
export async function listSessions(ctx: SessionContext): Promise<SessionInfo[] | null> {
  const { config } = ctx
  if (config.session.strategy === "jwt") {
    const token = await currentJwt(ctx)
    if (!token) return null
    const info: SessionInfo = { id: "jwt", current: true, expires: token.exp ?? 0 }
    const at = claimsOf(token)?.at
    if (typeof at === "number") info.createdAt = at
    if (impersonationOf(token)) info.impersonated = true
    return [info]
  }
  const current = await currentDatabaseUser(ctx)
  if (!current) return null
  const rows = await liveSessionsOf(config, current.user.id)
  const time = (row: AdapterSession) => new Date(row.createdAt ?? 0).valueOf()
  rows.sort((a, b) => time(b) - time(a) || new Date(b.expires).valueOf() - new Date(a.expires).valueOf())
  return rows.slice(0, MAX_LISTED_SESSIONS).map((row) => {
    const info: SessionInfo = {
      id: publicSessionId(row.sessionToken),
      current: row.sessionToken === current.session.sessionToken,
      expires: seconds(row.expires) ?? 0,
    }
    const createdAt = seconds(row.createdAt)
    const lastActiveAt = seconds(row.lastActiveAt)
    if (createdAt !== undefined) info.createdAt = createdAt
    if (lastActiveAt !== undefined) info.lastActiveAt = lastActiveAt
    if (typeof row.userAgent === "string") info.userAgent = row.userAgent
    if (typeof row.ip === "string") info.ip = row.ip
    if (typeof row.impersonatedBy === "string" && row.impersonatedBy !== "") info.impersonated = true
    return info
  })
}

/**
 * Ends one session of the request's user by its public id. Another user's id, or an unknown one, is `not-found` and
 * changes nothing. Ending the current session also clears its cookie.
 *
 * @example
 * ```ts
 * if ((await revokeSession(ctx, id)) === "not-found") return { status: 404, body: { error: "NotFound" } }
 * ```
 */
export async function revokeSession(ctx: SessionContext, id: string): Promise<RevokeOutcome> {
  const { config } = ctx
  if (config.session.strategy === "jwt") {
    const token = await currentJwt(ctx)
    if (!token) return "unauthenticated"
    if (!sameId(id, "jwt")) return "not-found"
    // Every copy of the cookie must stop working, not only this browser's: the session is marked ended by its epoch
    // (a token from before epochs existed can only be ended with all such tokens of the user, by the watermark).
    const epoch = claimsOf(token)?.se
    if (typeof epoch === "number")
      await config.store.set(sessionEndKey(token.sub as string, epoch), "1", config.session.maxAge)
    else await raiseWatermark(config, token.sub as string, 1)
    await clearCurrent(ctx)
    await config.events.signOut({ token, reason: "revoked" })
    await audited(ctx, token.sub as string, 1)
    return "revoked"
  }
  const current = await currentDatabaseUser(ctx)
  if (!current) return "unauthenticated"
  const rows = await liveSessionsOf(config, current.user.id)
  const target = rows.find((row) => sameId(publicSessionId(row.sessionToken), id))
  if (!target) return "not-found"
  const count = await deleteRows(config, [target])
  if (target.sessionToken === current.session.sessionToken) await clearCurrent(ctx)
  if (count === 1) await audited(ctx, current.user.id, 1)
  return count === 1 ? "revoked" : "not-found"
}

/**
 * Ends every session of the request's user but the current one, audited as `session.revoked` with `reason` (`self`
 * by default; `password-change` or `two-factor` when those acts end them). JWT strategy: raises the user's watermark
 * to now and re-issues the current cookie with a newer session epoch, so every other token of the user is refused.
 *
 * @example
 * ```ts
 * await revokeOtherSessions(ctx) // "revoked"
 * ```
 */
export async function revokeOtherSessions(
  ctx: SessionContext,
  reason: RevocationReason = "self",
): Promise<RevokeOutcome> {
  const { config } = ctx
  if (config.session.strategy === "jwt") {
    const token = await currentJwt(ctx)
    if (!token) return "unauthenticated"
    const now = Date.now()
    await raiseWatermark(config, token.sub as string, now)
    const { cookie } = await currentPrincipal(ctx)
    await writeJwtSession(ctx, { ...token, __gh: { ...claimsOf(token), se: now + 1 } }, cookie.present)
    forgetPrincipal(ctx)
    await audited(ctx, token.sub as string, undefined, reason)
    return "revoked"
  }
  const current = await currentDatabaseUser(ctx)
  if (!current) return "unauthenticated"
  const rows = await liveSessionsOf(config, current.user.id)
  const count = await deleteRows(
    config,
    rows.filter((row) => row.sessionToken !== current.session.sessionToken),
  )
  await audited(ctx, current.user.id, count, reason)
  return "revoked"
}

/**
 * "Sign out everywhere": ends every session of the request's user, the current one included (its cookie is cleared).
 *
 * @example
 * ```ts
 * await revokeAllSessions(ctx)
 * ```
 */
export async function revokeAllSessions(ctx: SessionContext): Promise<RevokeOutcome> {
  const { config } = ctx
  if (config.session.strategy === "jwt") {
    const token = await currentJwt(ctx)
    if (!token) return "unauthenticated"
    await raiseWatermark(config, token.sub as string, Date.now() + 1)
    await revokeTrust(config, token.sub as string)
    await clearCurrent(ctx)
    await config.events.signOut({ token, reason: "revoked" })
    await audited(ctx, token.sub as string)
    return "revoked"
  }
  const current = await currentDatabaseUser(ctx)
  if (!current) return "unauthenticated"
  const count = await deleteRows(config, await liveSessionsOf(config, current.user.id))
  await revokeTrust(config, current.user.id)
  await clearCurrent(ctx)
  await audited(ctx, current.user.id, count)
  return "revoked"
}

/**
 * Whether the request's session began at most `session.freshAge` seconds ago: `now − sign-in time ≤ freshAge`, with
 * the sign-in time in whole seconds as the session records it (JWT: the `__gh.at` claim; database: the row's
 * `createdAt`, read to the second the same way) and "now" not rounded, so no session is fresh past `freshAge`.
 * Without a session, or without a recorded sign-in time, it is not fresh.
 *
 * @example
 * ```ts
 * if (!(await isSessionFresh(ctx))) return { status: 403, body: { error: "SessionNotFresh" } }
 * ```
 */
export async function isSessionFresh(ctx: SessionContext): Promise<boolean> {
  const { config } = ctx
  let signedInAt: number | undefined
  if (config.session.strategy === "jwt") {
    const at = claimsOf(await currentJwt(ctx))?.at
    signedInAt = typeof at === "number" ? at : undefined
  } else {
    signedInAt = (await currentDatabaseUser(ctx))?.authTime
  }
  if (signedInAt === undefined) return false
  // Milliseconds on both sides: rounding "now" down kept a session fresh up to a second too long.
  return Date.now() - signedInAt * 1000 <= config.session.freshAge * 1000
}

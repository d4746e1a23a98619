/**
 * Impersonation sessions (accounts.md §3.5): an admin acts as a user for at most `admin.impersonationMaxAge`. The
 * admin's own session cookie waits, sealed, in the impersonator cookie; stopping restores it, signing out ends it.
 * Only this module opens the impersonator cookie, and the session it holds is read through the one door, with every
 * check a session read runs. Bearers are never read here: impersonation is a browser-cookie feature.
 */
import { AccessDenied, NotImpersonating, SessionRequired } from "../../errors"
import { decode, encode } from "../../jwt"
import type { AdapterUser } from "../../storage/adapter"
import { recordAudit } from "../kernel/audit"
import { CookieJar } from "../kernel/cookies/jar"
import { clearSessionCookie, writeSessionCookie } from "../kernel/cookies/session-store"
import { readSessionCookie } from "../../cookie-header"
import type { Account, Session } from "../kernel/types"
import { claimsOf, impersonationOf, sessionEndKey } from "./claims"
import { readDatabaseSession, sessionStore } from "./database"
import { issueSession } from "./issue"
import { readJwtSession } from "./jwt"
import { currentPrincipal, forgetPrincipal, impersonatorOf } from "./principal"
import type { Principal, PrincipalResult, SessionContext } from "./types"
import { withoutReserved } from "./idp"

const PURPOSE = "gatehouse.impersonator"

/** The impersonator cookie's name: `gatehouse.impersonator`, `__Secure-` on https. */
export const impersonatorCookieName = (secure: boolean): string => (secure ? `__Secure-${PURPOSE}` : PURPOSE)

/** What the impersonator cookie holds: the admin, and their session cookie value (all chunks joined). */
interface ImpersonatorClaims {
  adminId: string
  cookie: string
  iat: number
}

const cookieOptions = (ctx: SessionContext) => ({
  httpOnly: true,
  sameSite: "lax" as const,
  path: "/",
  secure: ctx.cookies.sessionToken.options.secure === true,
})

const secureOf = (ctx: SessionContext): boolean => ctx.cookies.sessionToken.options.secure === true

/** `ctx` without its bearer and token answer, with a memory of its own (and any field of `over`). */
function withoutBearer(ctx: SessionContext, over: Partial<SessionContext> = {}): SessionContext {
  const { bearer: _bearer, tokenOut: _tokenOut, ...rest } = ctx
  return { ...rest, memo: {}, ...over }
}

/** The session context of the request's cookies only: no bearer, no token answer, a memory of its own. */
export function cookieOnly(ctx: SessionContext): SessionContext {
  return ctx.bearer || ctx.tokenOut ? withoutBearer(ctx) : ctx
}

/** The cookies the jar now sets (not the deletions): what the next request of this browser would carry. */
function carriedAfter(jar: CookieJar): Record<string, string> {
  const out: Record<string, string> = {}
  for (const cookie of jar.list()) if (cookie.value !== "") out[cookie.name] = cookie.value
  return out
}

/** The session the request would read with these cookies (no cookie it would write reaches the response). */
function sessionWith(ctx: SessionContext, cookies: Record<string, string>, jar = new CookieJar()) {
  const reader = withoutBearer(ctx, { requestCookies: cookies, jar })
  const read = ctx.config.session.strategy === "jwt" ? readJwtSession : readDatabaseSession
  return { reader, read: (reissue: "always" | "throttled") => read(reader, { reissue }) }
}

/**
 * Starts impersonating `target` for the admin signed in on `ctx` (the caller checked who may, and whom): issues the
 * target's impersonation session as a sign-in would (the `jwt` callback runs with `trigger: "signIn"` and the account
 * `{provider: "impersonation"}`; no `signIn` callback or event), moves the admin's session cookie into the sealed
 * impersonator cookie, and audits `impersonation.started`. Resolves to the target's session as the app sees it.
 *
 * @example
 * ```ts
 * const session = await startImpersonation(ctx, admin.id, bob, 3600)
 * ```
 */
export async function startImpersonation(
  ctx: SessionContext,
  adminId: string,
  target: AdapterUser,
  maxAge: number,
): Promise<Session> {
  const door = await currentPrincipal(ctx)
  if (!door.ok || door.cookie.value === undefined) throw new SessionRequired("Sign in first")
  const adminCookie = door.cookie.value
  const account = {
    provider: "impersonation",
    type: "impersonation",
    providerAccountId: target.id,
  } as unknown as Account
  const issued = await issueSession(ctx, {
    user: target,
    account,
    trigger: "signIn",
    impersonation: { by: adminId, maxAge },
  })
  if (!issued) throw new AccessDenied("The jwt callback returned no session for the impersonated user")
  const claims: ImpersonatorClaims = { adminId, cookie: adminCookie, iat: Math.floor(Date.now() / 1000) }
  const sealed = await encode({ token: { ...claims }, secret: ctx.config.secret, salt: PURPOSE, maxAge })
  // Chunked like the session cookie it holds, so a large session still fits.
  writeSessionCookie(ctx.jar, impersonatorCookieName(secureOf(ctx)), sealed, { ...cookieOptions(ctx), maxAge }, [])
  forgetPrincipal(ctx)
  await recordAudit(ctx, { type: "impersonation.started", userId: target.id, actorId: adminId })
  const session = await sessionWith(ctx, carriedAfter(ctx.jar)).read("throttled")
  if (!session) throw new AccessDenied("The impersonation session could not be read back")
  return session
}

/** Whether the request carries an impersonator cookie that opens: a browser in the middle of an impersonation. */
export async function carriesImpersonator(ctx: SessionContext): Promise<boolean> {
  return (await openImpersonator(ctx)) !== null
}

/** Opens the request's impersonator cookie: its claims, or `null` (absent, foreign, tampered or expired). */
async function openImpersonator(ctx: SessionContext): Promise<ImpersonatorClaims | null> {
  const { value } = readSessionCookie(ctx.requestCookies, impersonatorCookieName(secureOf(ctx)))
  if (!value) return null
  try {
    const claims = await decode({ token: value, secret: ctx.config.secret, salt: PURPOSE })
    if (!claims || typeof claims.adminId !== "string" || typeof claims.cookie !== "string") return null
    return claims as unknown as ImpersonatorClaims
  } catch {
    return null
  }
}

/** The admin session the impersonator cookie holds, read through the door: only while it is still that admin's. */
async function heldAdminSession(ctx: SessionContext, adminId: string, opened: ImpersonatorClaims | null) {
  if (!opened || opened.adminId !== adminId) return null
  const held = sessionWith(ctx, { [ctx.cookies.sessionToken.name]: opened.cookie }, ctx.jar)
  const door = await currentPrincipal(held.reader)
  if (!door.ok || door.principal.userId !== adminId || impersonatorOf(door.principal) !== undefined) return null
  return { ...held, principal: door.principal }
}

/** Marks a JWT impersonation session ended for what is left of its life, so every copy of its cookie is refused. */
async function markJwtEnded(ctx: SessionContext, principal: Principal): Promise<void> {
  if (principal.strategy !== "jwt" || principal.userId === undefined) return
  const epoch = claimsOf(principal.token)?.se
  const until = impersonationOf(principal.token)?.until ?? 0
  if (typeof epoch !== "number") return
  const left = Math.max(1, until - Math.floor(Date.now() / 1000))
  await ctx.config.store.set(sessionEndKey(principal.userId, epoch), "1", left)
}

/**
 * Ends a session and fires `events.signOut`: a row is deleted; a JWT is marked ended when `mark` (the impersonation
 * session, whose copies must stop working), else only dropped with its cookie (the admin's held session).
 */
async function endOne(ctx: SessionContext, principal: Principal, mark: boolean): Promise<void> {
  const { config } = ctx
  if (principal.strategy === "database") {
    const session = await sessionStore(config).deleteSession(principal.session.sessionToken)
    await config.events.signOut({ session: session ?? principal.session })
    return
  }
  if (mark) await markJwtEnded(ctx, principal)
  await config.events.signOut({ token: withoutReserved(principal.token) })
}

/** Clears every chunk of the impersonator cookie the request carries; whether it carried one. */
export function clearImpersonator(ctx: SessionContext): boolean {
  const { present } = readSessionCookie(ctx.requestCookies, impersonatorCookieName(secureOf(ctx)))
  clearSessionCookie(ctx.jar, present, cookieOptions(ctx))
  return present.length > 0
}

/**
 * Stops the request's impersonation: ends the impersonation session (so a copied cookie is refused too), restores
 * the admin's session from the impersonator cookie when it still reads as that admin (else the session cookie is
 * cleared), clears the impersonator cookie and audits `impersonation.stopped`. Resolves to the restored session
 * (without `impersonatedBy`) or `null`. An impersonation already past its cap is ended as {@link endExpired} says,
 * with `null`. `SessionRequired` without a session, `NotImpersonating` for a normal one.
 *
 * @example
 * ```ts
 * const adminSession = await stopImpersonation(ctx)
 * ```
 */
export async function stopImpersonation(ctx: SessionContext): Promise<Session | null> {
  const door = await currentPrincipal(ctx)
  if (!door.ok && (await endExpired(ctx, door))) return null
  if (!door.ok || door.principal.userId === undefined) throw new SessionRequired("Sign in first")
  const { principal } = door
  const adminId = impersonatorOf(principal)
  if (adminId === undefined) throw new NotImpersonating("This session is not an impersonation session")
  await endOne(ctx, principal, true)
  clearSessionCookie(ctx.jar, door.cookie.present, ctx.cookies.sessionToken.options)
  const held = await heldAdminSession(ctx, adminId, await openImpersonator(ctx))
  clearImpersonator(ctx)
  forgetPrincipal(ctx)
  // The restored session is re-issued into the response's jar: the admin is back as they were.
  const restored = held ? await held.read("always") : null
  await recordAudit(ctx, { type: "impersonation.stopped", userId: principal.userId, actorId: adminId })
  return restored
}

/**
 * The impersonation a session past its cap was: its target and admin (a JWT refused past `__gh.ie`, or an expired row
 * with `impersonatedBy`), else `undefined`.
 */
function expiredImpersonation(door: PrincipalResult): { userId: string; adminId: string } | undefined {
  if (door.ok || door.reason !== "expired") return undefined
  if (door.token) {
    const by = impersonationOf(door.token)?.by
    const sub = door.token.sub
    return by !== undefined && typeof sub === "string" && sub !== "" ? { userId: sub, adminId: by } : undefined
  }
  const row = door.session
  const by = row?.impersonatedBy
  return row && typeof by === "string" && by !== "" ? { userId: row.userId, adminId: by } : undefined
}

/**
 * Stopping after the cap: a request that carries the impersonator cookie with its expired impersonation session has
 * both cookies cleared (the admin signs in again: nothing is restored), an expired row deleted, and
 * `impersonation.stopped` audited with reason `expired`, once: where the impersonator cookie is consumed, so a
 * browser's later requests, which no longer carry it, write nothing. Whether the request was such a request.
 */
async function endExpired(ctx: SessionContext, door: Extract<PrincipalResult, { ok: false }>): Promise<boolean> {
  const ended = expiredImpersonation(door)
  if (!ended || !clearImpersonator(ctx)) return false
  if (door.session) await sessionStore(ctx.config).deleteSession(door.session.sessionToken)
  clearSessionCookie(ctx.jar, door.cookie.present, ctx.cookies.sessionToken.options)
  forgetPrincipal(ctx)
  await recordAudit(ctx, {
    type: "impersonation.stopped",
    userId: ended.userId,
    actorId: ended.adminId,
    reason: "expired",
  })
  return true
}

/**
 * At sign-out of an impersonation session (the caller deletes its row or drops its cookie): a JWT one is also marked
 * ended, so a copied cookie is refused; the admin session held in the impersonator cookie ends too (its row is
 * deleted; a JWT is dropped with the cookie); `impersonation.stopped` is audited with reason `signout`. One already
 * past its cap is audited with reason `expired`, only when the request carries the impersonator cookie (consumed
 * here, so once). A request that only carries a stale impersonator cookie has it cleared.
 *
 * @example
 * ```ts
 * await signOutImpersonation(ctx, await currentPrincipal(ctx))
 * ```
 */
export async function signOutImpersonation(ctx: SessionContext, door: PrincipalResult): Promise<void> {
  const carried = clearImpersonator(ctx)
  const by = door.ok ? impersonatorOf(door.principal) : undefined
  const ended = door.ok
    ? by === undefined
      ? undefined
      : { userId: door.principal.userId, adminId: by }
    : expiredImpersonation(door)
  if (!ended || (!door.ok && !carried)) return
  if (door.ok) await markJwtEnded(ctx, door.principal)
  const held = carried ? await heldAdminSession(ctx, ended.adminId, await openImpersonator(ctx)) : null
  if (held) await endOne(ctx, held.principal, false)
  await recordAudit(ctx, {
    type: "impersonation.stopped",
    userId: ended.userId,
    actorId: ended.adminId,
    reason: door.ok ? "signout" : "expired",
  })
}

/**
 * The admin's reads and changes of users (accounts.md §3.2–3.4): list and search with a keyset cursor, one user's
 * detail, ban and unban, set a role, revoke sessions. Every function authorizes first (`requireAdmin`), so a
 * non-admin learns nothing about other users.
 */
import { AdminTarget, InvalidRequest, InvalidRole, InvalidTarget, NotFound } from "../../../errors"
import type { AdapterUser } from "../../../storage/adapter"
import { recordAudit } from "../../kernel/audit"
import { revokeUserSessions } from "../../session/manage"
import { isBanned, banExpiresAt } from "../../session/ban"
import type { SessionContext } from "../../session/types"
import { overviewOf } from "./overview"
import { directory } from "../../session/subject"
import { idField } from "./unlink"
import { requireAdmin } from "./admin-guard"

/** A user as the admin API shows it. Times are seconds since the epoch. */
export interface UserSummary {
  id: string
  email: string | null
  name: string | null
  image: string | null
  emailVerified: number | null
  role: string | null
  banned: boolean
  banReason: string | null
  banExpires: number | null
}

/** A user with what they can sign in with (no token) and how many sessions they have. */
export interface UserDetail extends UserSummary {
  accounts: Array<{ provider: string; type: string; providerAccountId: string }>
  passkeys: number
  twoFactorEnabled: boolean
  password: boolean
  /** Database strategy: live rows; JWT: `null`. */
  sessions: number | null
}

const seconds = (value: unknown): number | null =>
  value === null || value === undefined ? null : Math.floor(new Date(value as Date).getTime() / 1000)

/** The summary of a stored user. */
export function summaryOf(user: AdapterUser): UserSummary {
  const banned = isBanned(user)
  const expires = banExpiresAt(user)
  return {
    id: user.id,
    email: user.email ?? null,
    name: user.name ?? null,
    image: user.image ?? null,
    emailVerified: seconds(user.emailVerified),
    role: user.role ?? null,
    banned,
    banReason: banned ? (user.banReason ?? null) : null,
    banExpires: banned && expires !== null ? Math.floor(expires / 1000) : null,
  }
}

function encodeCursor(user: AdapterUser): string {
  const e = user.email ? user.email.toLowerCase() : null
  return Buffer.from(JSON.stringify({ e, i: user.id })).toString("base64url")
}

function decodeCursor(cursor: unknown): { emailKey: string | null; id: string } {
  const bad = () => new InvalidRequest("Invalid cursor", { cause: { field: "cursor" } })
  if (typeof cursor !== "string" || cursor.length === 0 || cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw bad()
  }
  try {
    const { e, i } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { e?: unknown; i?: unknown }
    if ((e !== null && typeof e !== "string") || typeof i !== "string" || i.length === 0) throw bad()
    return { emailKey: e, id: i }
  } catch {
    throw bad()
  }
}

/** The input of {@link listUsers}. */
export interface ListUsersInput {
  search?: unknown
  limit?: unknown
  cursor?: unknown
}

/**
 * One page of users in email order (`limit` 1–100, default 50), optionally those whose email starts with `search` or
 * whose id is it; `nextCursor` is `null` on the last page.
 *
 * @example
 * ```ts
 * const { users, nextCursor } = await listUsers(ctx, { search: "ada", limit: 20 })
 * ```
 */
export async function listUsers(
  ctx: SessionContext,
  input: ListUsersInput = {},
): Promise<{ users: UserSummary[]; nextCursor: string | null }> {
  await requireAdmin(ctx, "listUsers")
  const limit = input.limit ?? 50
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new InvalidRequest("limit must be a whole number from 1 to 100", { cause: { field: "limit" } })
  }
  if (input.search !== undefined && (typeof input.search !== "string" || input.search.length > 254)) {
    throw new InvalidRequest("Invalid search", { cause: { field: "search" } })
  }
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor)
  const search = typeof input.search === "string" ? input.search.trim() : ""
  const store = directory(ctx.config)
  const rows = await store.listUsers!({
    ...(search ? { emailPrefix: search.toLowerCase(), id: search } : {}),
    ...(after ? { after } : {}),
    limit: limit + 1,
  })
  const page = rows.slice(0, limit)
  return {
    users: page.map(summaryOf),
    nextCursor: rows.length > limit && page.length > 0 ? encodeCursor(page[page.length - 1]!) : null,
  }
}

/** The user an admin call names, or `NotFound`. */
export async function target(ctx: SessionContext, id: unknown): Promise<AdapterUser> {
  const user = await directory(ctx.config).getUser(idField("id", id))
  if (!user) throw new NotFound("No such user")
  return user
}

/**
 * One user in detail: accounts (no tokens), passkey count, sessions (database strategy).
 *
 * @example
 * ```ts
 * const detail = await getUserDetail(ctx, "u-1")
 * ```
 */
export async function getUserDetail(ctx: SessionContext, id: unknown): Promise<UserDetail> {
  await requireAdmin(ctx, "getUser")
  const user = await target(ctx, id)
  const overview = await overviewOf(ctx.config, user.id, user)
  const store = directory(ctx.config)
  const database = ctx.config.session.strategy === "database" && store.listSessionsByUserId
  const now = Date.now()
  const sessions = database
    ? (await store.listSessionsByUserId!(user.id)).filter((s) => new Date(s.expires).getTime() > now).length
    : null
  return {
    ...summaryOf(user),
    accounts: overview.accounts,
    passkeys: overview.passkeys.length,
    twoFactorEnabled: overview.twoFactor.enabled,
    password: overview.password,
    sessions,
  }
}

/**
 * Bans a user: the three columns, every session revoked (rows, JWT watermark), audit `user.banned`. Yourself is
 * `InvalidTarget`, an admin `AdminTarget`.
 *
 * @example
 * ```ts
 * await banUser(ctx, "u-2", { reason: "spam", expiresAt: 1767225600 })
 * ```
 */
export async function banUser(
  ctx: SessionContext,
  id: unknown,
  input: { reason?: unknown; expiresAt?: unknown } = {},
): Promise<UserSummary> {
  const { admin } = await requireAdmin(ctx, "banUser")
  const user = await target(ctx, id)
  if (user.id === admin.id) throw new InvalidTarget("You cannot ban yourself")
  if (await ctx.config.accounts.admin!.isAdmin(user)) throw new AdminTarget("Demote an admin before banning them")
  const { reason, expiresAt } = input
  if (reason !== undefined && reason !== null && (typeof reason !== "string" || reason.trim().length > 500)) {
    throw new InvalidRequest("reason must be at most 500 characters", { cause: { field: "reason" } })
  }
  const now = Math.floor(Date.now() / 1000)
  if (
    expiresAt !== undefined &&
    expiresAt !== null &&
    (typeof expiresAt !== "number" || !Number.isInteger(expiresAt) || expiresAt <= now || expiresAt > now + 315_360_000)
  ) {
    throw new InvalidRequest("expiresAt must be a future time in seconds", { cause: { field: "expiresAt" } })
  }
  const banReason = typeof reason === "string" && reason.trim() !== "" ? reason.trim() : null
  const banExpires = typeof expiresAt === "number" ? new Date(expiresAt * 1000) : null
  const updated = await directory(ctx.config).updateUser({ id: user.id, banned: true, banReason, banExpires })
  await revokeUserSessions(ctx.config, user.id, { reason: "ban", actorId: admin.id, source: ctx })
  await recordAudit(ctx, {
    type: "user.banned",
    userId: user.id,
    actorId: admin.id,
    reason: banReason,
    details: { expiresAt: typeof expiresAt === "number" ? expiresAt : null },
  })
  return summaryOf(updated)
}

/**
 * Lifts a ban; audit `user.unbanned`.
 *
 * @example
 * ```ts
 * await unbanUser(ctx, "u-2")
 * ```
 */
export async function unbanUser(ctx: SessionContext, id: unknown): Promise<UserSummary> {
  const { admin } = await requireAdmin(ctx, "unbanUser")
  const user = await target(ctx, id)
  const updated = await directory(ctx.config).updateUser({
    id: user.id,
    banned: false,
    banReason: null,
    banExpires: null,
  })
  await recordAudit(ctx, { type: "user.unbanned", userId: user.id, actorId: admin.id, details: { expiresAt: null } })
  return summaryOf(updated)
}

const ROLE = /^[a-z][a-z0-9_-]{0,31}$/

/**
 * Sets (or with `null` clears) a user's role; audit `user.role_changed` with `from` and `to`.
 *
 * @example
 * ```ts
 * await setRole(ctx, "u-2", "admin")
 * ```
 */
export async function setRole(ctx: SessionContext, id: unknown, role: unknown): Promise<UserSummary> {
  const { admin } = await requireAdmin(ctx, "setRole")
  const user = await target(ctx, id)
  if (user.id === admin.id) throw new InvalidTarget("You cannot change your own role")
  const to = role === null ? null : typeof role === "string" && ROLE.test(role) ? role : undefined
  if (to === undefined) throw new InvalidRole("Invalid role")
  const from = user.role ?? null
  const updated = await directory(ctx.config).updateUser({ id: user.id, role: to })
  await recordAudit(ctx, { type: "user.role_changed", userId: user.id, actorId: admin.id, details: { from, to } })
  return summaryOf(updated)
}

/**
 * Ends every session of a user, authorized and audited (`session.revoked`, reason `admin`).
 *
 * @example
 * ```ts
 * const { count } = await adminRevokeSessions(ctx, "u-2")
 * ```
 */
export async function adminRevokeSessions(ctx: SessionContext, id: unknown): Promise<{ count: number }> {
  const { admin } = await requireAdmin(ctx, "adminRevokeSessions")
  const user = await target(ctx, id)
  const count = await revokeUserSessions(ctx.config, user.id, { reason: "admin", actorId: admin.id, source: ctx })
  return { count }
}

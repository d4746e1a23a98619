/** Listing the audit trail (accounts.md §4.3): the keyset cursor, the admin listing and the user's own feed. */
import { InvalidRequest } from "../../../errors"
import { publicAuditEvent } from "./record"
import { isAuditEventType } from "./types"
import type { AuditEvent, AuditStore, MyAuditEvent } from "./types"

/** The types the user's own "recent activity" feed shows. */
const MY_TYPES =
  /^(signin|signout|session\.revoked|account\..+|email\..+|password\..+|twofactor\..+|passkey\..+|impersonation\..+|user\.banned|user\.unbanned)$/

/** The opaque cursor of a listing: base64url of `{"a": at in ms, "i": id}` of the last event returned. */
export function encodeAuditCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify({ a: at.getTime(), i: id })).toString("base64url")
}

/** Decodes a cursor; anything that is not one is `InvalidRequest`. */
export function decodeAuditCursor(cursor: string): { at: Date; id: string } {
  const bad = () => new InvalidRequest("Invalid cursor", { cause: { field: "cursor" } })
  if (cursor.length === 0 || cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad()
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
  } catch {
    throw bad()
  }
  const { a, i } = (parsed ?? {}) as { a?: unknown; i?: unknown }
  if (!Number.isSafeInteger(a) || (a as number) < 0 || typeof i !== "string" || i.length < 1 || i.length > 255) {
    throw bad()
  }
  return { at: new Date(a as number), id: i }
}

/** An integer `limit` within `[min, max]`, `fallback` when absent; anything else is `InvalidRequest`. */
export function limitOption(value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
    throw new InvalidRequest(`limit must be a whole number from 1 to ${max}`, { cause: { field: "limit" } })
  }
  return value
}

/** What the admin listing takes (already authorized). */
export interface AuditListInput {
  userId?: unknown
  type?: unknown
  limit?: unknown
  cursor?: unknown
}

/**
 * The admin listing: newest first, `limit` 1–200 (default 50), filtered by user and/or type, walked with the cursor.
 * Without a store it is empty.
 *
 * @example
 * ```ts
 * const { events, nextCursor } = await listAudit(config.audit.store, { limit: 2 })
 * ```
 */
export async function listAudit(
  store: AuditStore | undefined,
  input: AuditListInput,
): Promise<{ events: AuditEvent[]; nextCursor: string | null }> {
  const limit = limitOption(input.limit, 50, 200)
  if (input.userId !== undefined && (typeof input.userId !== "string" || !input.userId || input.userId.length > 255)) {
    throw new InvalidRequest("Invalid userId", { cause: { field: "userId" } })
  }
  if (input.type !== undefined && !isAuditEventType(input.type)) {
    throw new InvalidRequest("Unknown audit event type", { cause: { field: "type" } })
  }
  if (input.cursor !== undefined && typeof input.cursor !== "string") {
    throw new InvalidRequest("Invalid cursor", { cause: { field: "cursor" } })
  }
  const before = input.cursor === undefined ? undefined : decodeAuditCursor(input.cursor)
  if (!store) return { events: [], nextCursor: null }
  const rows = await store.listAuditEvents({
    ...(input.userId !== undefined ? { userId: input.userId as string } : {}),
    ...(input.type !== undefined ? { type: input.type as string } : {}),
    ...(before ? { before } : {}),
    limit: limit + 1,
  })
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  const nextCursor = rows.length > limit && last ? encodeAuditCursor(new Date(last.at), last.id) : null
  return { events: page.map(publicAuditEvent), nextCursor }
}

/**
 * The user's own feed: their events of the listed types, newest first, `limit` 1–50 (default 20); `byAdmin` instead
 * of the admin's id, and no `details`.
 *
 * @example
 * ```ts
 * const events = await listMyAudit(config.audit.store, userId, 20)
 * ```
 */
export async function listMyAudit(
  store: AuditStore | undefined,
  userId: string,
  rawLimit: unknown,
): Promise<MyAuditEvent[]> {
  const limit = limitOption(rawLimit, 20, 50)
  if (!store) return []
  const out: MyAuditEvent[] = []
  let before: { at: Date; id: string } | undefined
  // Other types (admin.denied, ratelimit.hit, user.role_changed) are skipped; a few pages at most.
  for (let page = 0; page < 5 && out.length < limit; page++) {
    const rows = await store.listAuditEvents({ userId, limit: limit * 2, ...(before ? { before } : {}) })
    for (const row of rows) {
      if (out.length >= limit) break
      if (!MY_TYPES.test(row.type)) continue
      const event = publicAuditEvent(row)
      out.push({
        id: event.id,
        type: event.type,
        at: event.at,
        ip: event.ip,
        userAgent: event.userAgent,
        provider: event.provider,
        outcome: event.outcome,
        reason: event.reason,
        byAdmin: row.actorId !== null,
      })
    }
    const last = rows[rows.length - 1]
    if (rows.length < limit * 2 || !last) break
    before = { at: new Date(last.at), id: last.id }
  }
  return out
}

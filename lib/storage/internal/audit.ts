// What the adapters share for the audit trail: copying an event, its row shape in SQL, and the listing order.
import type { AdapterAuditEvent, AuditDetailValue, AuditEventFilter } from "../adapter"
import { parseExtra, toDate } from "./models"

/** A copy of an event with its own `Date` and `details` (so callers never share objects with a store). */
export function copyAuditEvent(event: AdapterAuditEvent): AdapterAuditEvent {
  return {
    id: event.id,
    type: event.type,
    at: new Date(event.at),
    userId: event.userId ?? null,
    actorId: event.actorId ?? null,
    ip: event.ip ?? null,
    userAgent: event.userAgent ?? null,
    provider: event.provider ?? null,
    outcome: event.outcome,
    reason: event.reason ?? null,
    details: event.details ? { ...event.details } : null,
  }
}

/** The SQL row of an event (SQLite and PostgreSQL share the column names). */
export interface AuditRow {
  id: string
  type: string
  at: unknown
  user_id: string | null
  actor_id: string | null
  ip: string | null
  user_agent: string | null
  provider: string | null
  outcome: "success" | "failure"
  reason: string | null
  details: unknown
}

/** An event from its SQL row (`at` as epoch ms or a `Date`, `details` as JSON text or an object). */
export function auditFromRow(row: AuditRow): AdapterAuditEvent {
  const details = row.details === null || row.details === undefined ? null : parseExtra(row.details)
  return {
    id: row.id,
    type: row.type,
    at: toDate(typeof row.at === "string" && /^\d+$/.test(row.at) ? Number(row.at) : row.at),
    userId: row.user_id,
    actorId: row.actor_id,
    ip: row.ip,
    userAgent: row.user_agent,
    provider: row.provider,
    outcome: row.outcome,
    reason: row.reason,
    details: details as Record<string, AuditDetailValue> | null,
  }
}

/** The columns of an insert, in order, after the `at` column's value. */
export const AUDIT_INSERT_COLUMNS =
  "id, type, at, user_id, actor_id, ip, user_agent, provider, outcome, reason, details"

/** The values of an insert, in the order of {@link AUDIT_INSERT_COLUMNS}; `at` is given as the caller stores it. */
export function auditValues(event: AdapterAuditEvent, at: unknown): unknown[] {
  return [
    event.id,
    event.type,
    at,
    event.userId ?? null,
    event.actorId ?? null,
    event.ip ?? null,
    event.userAgent ?? null,
    event.provider ?? null,
    event.outcome,
    event.reason ?? null,
    event.details ? JSON.stringify(event.details) : null,
  ]
}

/** Newest first: `at` descending, then `id` descending. */
export function newestFirst(a: AdapterAuditEvent, b: AdapterAuditEvent): number {
  const byAt = new Date(b.at).getTime() - new Date(a.at).getTime()
  if (byAt !== 0) return byAt
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}

/** Whether an event passes a listing's user, type and `before` filters. */
export function matchesAuditFilter(event: AdapterAuditEvent, filter: AuditEventFilter): boolean {
  if (filter.userId !== undefined && event.userId !== filter.userId) return false
  if (filter.type !== undefined && event.type !== filter.type) return false
  if (filter.before) {
    const at = new Date(event.at).getTime()
    const before = new Date(filter.before.at).getTime()
    if (at > before || (at === before && event.id >= filter.before.id)) return false
  }
  return true
}

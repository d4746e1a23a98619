/**
 * The audit trail's vocabulary (accounts.md §4): the event types of table 4.2, the `details` keys each may carry, the
 * event as the sink and the listings give it, and the `audit` option.
 */
import type { AdapterAuditEvent, AuditDetailValue } from "../../../storage/adapter"
import type { Awaitable } from "../../../models"

/** Every event type of table 4.2, and the `details` keys each may carry (nothing else is ever written). */
export const AUDIT_EVENT_DETAILS = {
  signin: ["newUser"],
  signout: [],
  "session.revoked": ["count"],
  "account.linked": [],
  "account.unlinked": [],
  "email.change_requested": [],
  "email.changed": [],
  "email.change_cancelled": [],
  "password.reset": [],
  "password.changed": [],
  "twofactor.enabled": [],
  "twofactor.disabled": [],
  "twofactor.backup_codes_regenerated": [],
  "twofactor.used": ["method"],
  "twofactor.backup_code_used": ["remaining"],
  "passkey.added": [],
  "passkey.removed": [],
  "ratelimit.hit": [],
  "user.banned": ["expiresAt"],
  "user.unbanned": ["expiresAt"],
  "user.role_changed": ["from", "to"],
  "impersonation.started": [],
  "impersonation.stopped": [],
  "admin.denied": ["operation"],
  "account.deleted": ["confirmed"],
} as const satisfies Record<string, readonly string[]>

/** An event type of table 4.2. */
export type AuditEventType = keyof typeof AUDIT_EVENT_DETAILS

/** Whether `value` names an event type of table 4.2. */
export function isAuditEventType(value: unknown): value is AuditEventType {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(AUDIT_EVENT_DETAILS, value)
}

/** The reasons of `session.revoked` (table 4.2). */
export type RevocationReason =
  | "self"
  | "admin"
  | "ban"
  | "email-change"
  | "deleted"
  | "password-reset"
  | "password-change"
  | "two-factor"
  | "code-reuse"

/** One audit event as the sink and the admin listing give it. `at` is in seconds since the epoch. */
export interface AuditEvent {
  id: string
  type: AuditEventType
  at: number
  userId: string | null
  actorId: string | null
  ip: string | null
  userAgent: string | null
  provider: string | null
  outcome: "success" | "failure"
  reason: string | null
  details?: Record<string, AuditDetailValue>
}

/** An event of the user's own "recent activity" feed: no `details`, and whether an admin acted instead of who. */
export interface MyAuditEvent {
  id: string
  type: AuditEventType
  at: number
  ip: string | null
  userAgent: string | null
  provider: string | null
  outcome: "success" | "failure"
  reason: string | null
  byAdmin: boolean
}

/** The `audit` option of the config (accounts.md §1). */
export interface AuditOptions {
  /** Where events are kept: `"adapter"` (default when the adapter has the audit methods), or `false`. */
  store?: "adapter" | false
  /** Called once per event, after the store write; never awaited by the request, failures only logged. */
  sink?: (event: AuditEvent) => Awaitable<void>
  /** Days an event is kept (integer 1–3650, default 90); older events are pruned. */
  retention?: number
}

/** The audit methods an adapter brings. */
export interface AuditStore {
  createAuditEvent(event: AdapterAuditEvent, options?: { expires?: Date }): Promise<unknown>
  listAuditEvents(filter: {
    userId?: string
    type?: string
    before?: { at: Date; id: string }
    limit: number
  }): Promise<AdapterAuditEvent[]>
  deleteAuditEvents(filter: { before: Date }): Promise<number>
}

/** The `audit` option resolved: the store (absent with `store: false`), the sink and the retention in days. */
export interface ResolvedAudit {
  readonly store?: AuditStore
  readonly sink?: (event: AuditEvent) => Awaitable<void>
  readonly retention: number
}

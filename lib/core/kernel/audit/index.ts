/** The audit trail (accounts.md §4): record an act, prune, list. Every room may call it (it is on the kernel floor). */
export { recordAudit, pruneAuditEvents, publicAuditEvent, newAuditId, AUDIT_PRUNE_DELAY } from "./record"
export type { AuditSource, AuditInput, AuditConfig } from "./record"
export { resolveAudit, assertKnownKeys, DEFAULT_AUDIT_RETENTION } from "./config"
export { listAudit, listMyAudit, encodeAuditCursor, decodeAuditCursor, limitOption } from "./list"
export type { AuditListInput } from "./list"
export { AUDIT_EVENT_DETAILS, isAuditEventType } from "./types"
export type {
  AuditEvent,
  AuditEventType,
  AuditOptions,
  AuditStore,
  MyAuditEvent,
  ResolvedAudit,
  RevocationReason,
} from "./types"

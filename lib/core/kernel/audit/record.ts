/**
 * Writing the audit trail (accounts.md §4.4): one event per act, stored before the answer (bounded by the adapter's
 * timeout), then handed to the sink without waiting. Nothing here ever fails a request: store and sink failures are
 * logged, at most once a minute per resolved config. Retention prunes on a timer armed by a write, at most once an hour
 * per store, never within a request's answer.
 */
import { randomBytes } from "node:crypto"
import type { AdapterAuditEvent, AuditDetailValue } from "../../../storage/adapter"
import type { LoggerInstance } from "../../../logger"
import { storedClientIp } from "../rate-limit/ip"
import { AUDIT_EVENT_DETAILS } from "./types"
import type { AuditEvent, AuditEventType, ResolvedAudit } from "./types"

/** What an audit write reads of the resolved config. */
export interface AuditConfig {
  readonly audit: ResolvedAudit
  /** `session.storeIp` of the config (written out, so the audit room needs nothing of the config's types). */
  readonly session: { readonly storeIp?: boolean | "truncate" }
  readonly logger: LoggerInstance
}

/**
 * Where an act happened: the config, and the request's user agent and client IP when there is a request (a
 * `SessionContext` fits as is; server-only acts pass `{ config }`).
 */
export interface AuditSource {
  readonly config: AuditConfig
  readonly userAgent?: string | null
  readonly clientIp?: () => string | null
  /** The request's memory of its session: an impersonation session's admin is the `actorId` of what it does. */
  readonly memo?: { readonly impersonator?: string }
}

/** One act to record. `outcome` defaults to `success`; `details` keys outside table 4.2's allowlist are dropped. */
export interface AuditInput {
  type: AuditEventType
  userId: string | null | undefined
  actorId?: string | null
  provider?: string | null
  outcome?: "success" | "failure"
  reason?: string | null
  details?: Record<string, AuditDetailValue | undefined>
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const SINK_TIMEOUT = 5000
const DAY = 86_400_000
/**
 * How long after the write that arms it the retention pass waits. The pass must not share the request's moment: a
 * delete running next to the answer holds a database connection the request's next read would then have to open anew,
 * and it would run against a database the request has just found failing.
 */
export const AUDIT_PRUNE_DELAY = MINUTE

/** Last warning per resolved audit option and code. */
const lastWarned = new WeakMap<ResolvedAudit, Record<string, number>>()
/** Per store (per process): when its last retention pass ran, and whether one is armed. */
const pruning = new WeakMap<object, { last?: number; armed?: boolean }>()

function warnOnce(config: AuditConfig, code: "audit-store-failed" | "audit-sink-failed"): void {
  const seen = lastWarned.get(config.audit) ?? {}
  const now = Date.now()
  if (seen[code] !== undefined && now - seen[code] < MINUTE) return
  lastWarned.set(config.audit, { ...seen, [code]: now })
  config.logger.warn(code)
}

/** A new event id: 22 base64url characters (128 random bits). */
export const newAuditId = (): string => randomBytes(16).toString("base64url")

function ipOf(source: AuditSource): string | null {
  const mode = source.config.session.storeIp
  if (mode !== true && mode !== "truncate") return null
  try {
    return storedClientIp(source.clientIp?.() ?? null, mode)
  } catch {
    return null
  }
}

/** Only the allowlisted keys of the type, and only scalars. */
function allowedDetails(type: AuditEventType, details: AuditInput["details"]): Record<string, AuditDetailValue> | null {
  if (!details) return null
  const out: Record<string, AuditDetailValue> = {}
  for (const key of AUDIT_EVENT_DETAILS[type] as readonly string[]) {
    const value = details[key]
    if (value === undefined) continue
    if (value === null || typeof value === "boolean" || typeof value === "number" || typeof value === "string") {
      out[key] = typeof value === "string" ? value.slice(0, 500) : value
    }
  }
  return Object.keys(out).length > 0 ? out : null
}

/** The sink's and the admin listing's shape of a stored event: `at` in whole seconds, no `details` when none. */
export function publicAuditEvent(stored: AdapterAuditEvent): AuditEvent {
  const event: AuditEvent = {
    id: stored.id,
    type: stored.type as AuditEventType,
    at: Math.floor(new Date(stored.at).getTime() / 1000),
    userId: stored.userId,
    actorId: stored.actorId,
    ip: stored.ip,
    userAgent: stored.userAgent,
    provider: stored.provider,
    outcome: stored.outcome,
    reason: stored.reason,
  }
  if (stored.details && Object.keys(stored.details).length > 0) event.details = { ...stored.details }
  return event
}

function deepFreeze<T extends object>(value: T): Readonly<T> {
  for (const member of Object.values(value)) if (member && typeof member === "object") deepFreeze(member as object)
  return Object.freeze(value)
}

function runSink(config: AuditConfig, event: AuditEvent): void {
  const sink = config.audit.sink
  if (!sink) return
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("audit sink timed out")), SINK_TIMEOUT)
    timer.unref?.()
  })
  const call = new Promise<unknown>((resolve) => resolve(sink(deepFreeze(structuredClone(event)))))
  Promise.race([call, timeout])
    .catch(() => warnOnce(config, "audit-sink-failed"))
    .finally(() => clearTimeout(timer))
}

/**
 * Deletes the events older than the retention; resolves to how many went (0 without a store). Throws what the store
 * throws (the server function reports it; the timed retention pass only logs it).
 *
 * @example
 * ```ts
 * const pruned = await pruneAuditEvents(config)
 * ```
 */
export async function pruneAuditEvents(config: Pick<AuditConfig, "audit">): Promise<number> {
  const store = config.audit.store
  if (!store) return 0
  pruning.set(store, { ...pruning.get(store), last: Date.now() })
  return store.deleteAuditEvents({ before: new Date(Date.now() - config.audit.retention * DAY) })
}

/** Whether the store's last retention pass ran less than an hour ago. */
function prunedRecently(store: object): boolean {
  const last = pruning.get(store)?.last
  return last !== undefined && Date.now() - last < HOUR
}

/**
 * Arms the store's retention pass after a write: one timer at a time per store, firing `AUDIT_PRUNE_DELAY` later,
 * unref'd (it never keeps the process alive) and skipped when a pass ran within the hour. Holds nothing once it fired.
 */
function schedulePrune(config: AuditConfig): void {
  const store = config.audit.store
  if (!store || pruning.get(store)?.armed || prunedRecently(store)) return
  pruning.set(store, { ...pruning.get(store), armed: true })
  const timer = setTimeout(() => {
    pruning.set(store, { ...pruning.get(store), armed: false })
    // `pruneAuditEvents()` called by the app since the timer was armed counts as this hour's pass.
    if (prunedRecently(store)) return
    pruneAuditEvents(config).catch(() => warnOnce(config, "audit-store-failed"))
  }, AUDIT_PRUNE_DELAY)
  timer.unref?.()
}

/**
 * Records one act: builds the event (no secret ever reaches it: callers pass ids, provider ids and error types only,
 * and `details` is cut to the type's allowlist), stores it, then hands a frozen copy to the sink. Never throws.
 *
 * @example
 * ```ts
 * await recordAudit(sessionContext(ctx), { type: "signout", userId })
 * ```
 */
export async function recordAudit(source: AuditSource, input: AuditInput): Promise<void> {
  const { config } = source
  const { store, sink } = config.audit
  if (!store && !sink) return
  try {
    const at = new Date()
    const stored: AdapterAuditEvent = {
      id: newAuditId(),
      type: input.type,
      at,
      userId: input.userId ?? null,
      actorId: input.actorId !== undefined ? input.actorId : (source.memo?.impersonator ?? null),
      ip: ipOf(source),
      userAgent: source.userAgent ? source.userAgent.slice(0, 256) : null,
      provider: input.provider ?? null,
      outcome: input.outcome ?? "success",
      reason: input.reason ? input.reason.slice(0, 500) : null,
      details: allowedDetails(input.type, input.details),
    }
    if (store) {
      try {
        await store.createAuditEvent(stored, { expires: new Date(at.getTime() + config.audit.retention * DAY) })
        schedulePrune(config)
      } catch {
        warnOnce(config, "audit-store-failed")
      }
    }
    if (sink) runSink(config, publicAuditEvent(stored))
  } catch {
    warnOnce(config, "audit-store-failed")
  }
}

// The memory adapter's audit trail: a ring of the newest events (at most MEMORY_AUDIT_LIMIT), oldest dropped first.
import type { AuditAdapter } from "../adapter"
import { conflict } from "../internal/models"
import { copyAuditEvent, matchesAuditFilter, newestFirst } from "../internal/audit"
import type { AdapterAuditEvent } from "../adapter"

/** The most events the memory adapter keeps; a new event beyond it drops the oldest. */
export const MEMORY_AUDIT_LIMIT = 10_000

/** The audit methods of the memory adapter. */
export function memoryAuditMethods(limit = MEMORY_AUDIT_LIMIT): AuditAdapter {
  // Kept oldest first by (at, id), so the ring drops from the front.
  const events: AdapterAuditEvent[] = []
  const ids = new Set<string>()
  return {
    async createAuditEvent(event) {
      if (ids.has(event.id)) throw conflict("Audit event", { id: event.id })
      const stored = copyAuditEvent(event)
      let index = events.length
      while (index > 0 && newestFirst(events[index - 1]!, stored) < 0) index--
      events.splice(index, 0, stored)
      ids.add(stored.id)
      while (events.length > limit) ids.delete(events.shift()!.id)
      return copyAuditEvent(stored)
    },
    async listAuditEvents(filter) {
      const out: AdapterAuditEvent[] = []
      for (let i = events.length - 1; i >= 0 && out.length < filter.limit; i--) {
        if (matchesAuditFilter(events[i]!, filter)) out.push(copyAuditEvent(events[i]!))
      }
      return out
    },
    async deleteAuditEvents({ before }) {
      const cut = new Date(before).getTime()
      let count = 0
      while (events.length > 0 && new Date(events[0]!.at).getTime() < cut) {
        ids.delete(events.shift()!.id)
        count++
      }
      return count
    },
  }
}

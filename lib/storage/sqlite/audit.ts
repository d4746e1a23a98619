// The SQLite adapter's audit trail: the `audit_events` table (no foreign key: events outlive the user), `at` in ms.
import type { AuditAdapter } from "../adapter"
import { conflict } from "../internal/models"
import { AUDIT_INSERT_COLUMNS, auditFromRow, auditValues, copyAuditEvent } from "../internal/audit"
import type { AuditRow } from "../internal/audit"
import type { SQLiteDatabase } from "./schema"
import { rethrow } from "./sql"

/** The audit methods on `db`. Listings use the indexes on `(user_id, at, id)`, `(type, at, id)` and `(at, id)`. */
export function auditMethods(db: SQLiteDatabase): AuditAdapter {
  const insert = db.prepare(
    `INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const prune = db.prepare("DELETE FROM audit_events WHERE at < ?")
  return {
    async createAuditEvent(event) {
      const stored = copyAuditEvent(event)
      try {
        insert.run(...auditValues(stored, stored.at.getTime()))
      } catch (error) {
        return rethrow(error, {}, () => conflict("Audit event", { id: stored.id }))
      }
      return stored
    },
    async listAuditEvents(filter) {
      const where: string[] = []
      const values: unknown[] = []
      if (filter.userId !== undefined) {
        where.push("user_id = ?")
        values.push(filter.userId)
      }
      if (filter.type !== undefined) {
        where.push("type = ?")
        values.push(filter.type)
      }
      if (filter.before) {
        const at = new Date(filter.before.at).getTime()
        where.push("(at < ? OR (at = ? AND id < ?))")
        values.push(at, at, filter.before.id)
      }
      const sql =
        `SELECT * FROM audit_events ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ` +
        "ORDER BY at DESC, id DESC LIMIT ?"
      return db
        .prepare(sql)
        .all(...values, filter.limit)
        .map((row) => auditFromRow(row as AuditRow))
    },
    async deleteAuditEvents({ before }) {
      return Number(prune.run(new Date(before).getTime()).changes)
    },
  }
}

// The PostgreSQL adapter's audit trail: the `audit_events` table (no foreign key: events outlive the user).
import type { AuditAdapter } from "../adapter"
import { conflict } from "../internal/models"
import { AUDIT_INSERT_COLUMNS, auditFromRow, auditValues, copyAuditEvent } from "../internal/audit"
import type { AuditRow } from "../internal/audit"
import { translate } from "./query"
import type { Queryable } from "./query"

/** The audit methods on `db`, with the table in the quoted schema `s`. */
export function auditMethods(db: Queryable, s: string): AuditAdapter {
  return {
    async createAuditEvent(event) {
      const stored = copyAuditEvent(event)
      try {
        await db.query(
          `INSERT INTO ${s}.audit_events (${AUDIT_INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          auditValues(stored, stored.at),
        )
      } catch (error) {
        return translate(error, null, () => conflict("Audit event", { id: stored.id }))
      }
      return stored
    },
    async listAuditEvents(filter) {
      const where: string[] = []
      const values: unknown[] = []
      const param = (value: unknown): string => {
        values.push(value)
        return `$${values.length}`
      }
      if (filter.userId !== undefined) where.push(`user_id = ${param(filter.userId)}`)
      if (filter.type !== undefined) where.push(`type = ${param(filter.type)}`)
      if (filter.before) {
        const at = param(new Date(filter.before.at))
        where.push(`(at < ${at} OR (at = ${at} AND id < ${param(filter.before.id)}))`)
      }
      const result = await db.query(
        `SELECT * FROM ${s}.audit_events ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
           ORDER BY at DESC, id DESC LIMIT ${param(filter.limit)}`,
        values,
      )
      return result.rows.map((row) => auditFromRow(row as AuditRow))
    },
    async deleteAuditEvents({ before }) {
      const result = await db.query(`DELETE FROM ${s}.audit_events WHERE at < $1`, [new Date(before)])
      return result.rowCount ?? 0
    },
  }
}

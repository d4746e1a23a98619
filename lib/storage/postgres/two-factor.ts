// The PostgreSQL adapter's two-factor rows: one per user, the update one compare-and-swap statement on `version`.
import type { AdapterTwoFactor, TwoFactorAdapter } from "../adapter"
import { copyTwoFactor } from "../internal/models"
import { queryOne } from "./query"
import type { Queryable } from "./query"

interface TwoFactorRow {
  user_id: string
  secret: string
  verified_at: Date | null
  last_used_step: string | number
  backup_codes: Array<string | null>
  version: number
  created_at: Date
  updated_at: Date
}

function fromRow(row: TwoFactorRow | null): AdapterTwoFactor | null {
  if (!row) return null
  return copyTwoFactor({
    userId: row.user_id,
    secret: row.secret,
    verifiedAt: row.verified_at,
    lastUsedStep: Number(row.last_used_step),
    backupCodes: row.backup_codes,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  })
}

/** The two-factor methods on `db`, with the table in the quoted schema `s`. */
export function twoFactorMethods(db: Queryable, s: string): TwoFactorAdapter {
  const one = (sql: string, values: unknown[]) => queryOne<TwoFactorRow>(db, sql, values)
  return {
    async getTwoFactor(userId) {
      return fromRow(await one(`SELECT * FROM ${s}.two_factor WHERE user_id = $1`, [userId]))
    },
    async upsertTwoFactor(input) {
      const r = copyTwoFactor(input)
      const row = await one(
        `INSERT INTO ${s}.two_factor (user_id, secret, verified_at, last_used_step, backup_codes, version, created_at,
           updated_at) VALUES ($1, $2, $3, $4, $5::jsonb, 0, $6, $7)
         ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, verified_at = EXCLUDED.verified_at,
           last_used_step = EXCLUDED.last_used_step, backup_codes = EXCLUDED.backup_codes, version = 0,
           created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at
         RETURNING *`,
        [r.userId, r.secret, r.verifiedAt, r.lastUsedStep, JSON.stringify(r.backupCodes), r.createdAt, r.updatedAt],
      )
      return fromRow(row) as AdapterTwoFactor
    },
    async updateTwoFactor(userId, patch, { expectedVersion }) {
      const row = await one(
        `UPDATE ${s}.two_factor SET
           secret = CASE WHEN $3 THEN $4 ELSE secret END,
           verified_at = CASE WHEN $5 THEN $6::timestamptz ELSE verified_at END,
           last_used_step = CASE WHEN $7 THEN $8::bigint ELSE last_used_step END,
           backup_codes = CASE WHEN $9 THEN $10::jsonb ELSE backup_codes END,
           version = version + 1, updated_at = now()
         WHERE user_id = $1 AND version = $2 RETURNING *`,
        [
          userId,
          expectedVersion,
          patch.secret !== undefined,
          patch.secret ?? null,
          patch.verifiedAt !== undefined,
          patch.verifiedAt ?? null,
          patch.lastUsedStep !== undefined,
          patch.lastUsedStep ?? 0,
          patch.backupCodes !== undefined,
          JSON.stringify(patch.backupCodes ?? []),
        ],
      )
      return fromRow(row)
    },
    async deleteTwoFactor(userId) {
      return fromRow(await one(`DELETE FROM ${s}.two_factor WHERE user_id = $1 RETURNING *`, [userId]))
    },
  }
}

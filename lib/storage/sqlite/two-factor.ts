// The SQLite adapter's two-factor rows (table `two_factor` of schema.ts): one per user, compare-and-swap on `version`.
import type { AdapterTwoFactor, TwoFactorAdapter } from "../adapter"
import { copyTwoFactor } from "../internal/models"
import type { SQLiteDatabase } from "./schema"
import { ms } from "./sql"

interface TwoFactorRow {
  user_id: string
  secret: string
  verified_at: number | null
  last_used_step: number
  backup_codes: string
  version: number
  created_at: number
  updated_at: number
}

function fromRow(row: unknown): AdapterTwoFactor | null {
  if (!row) return null
  const r = row as TwoFactorRow
  return copyTwoFactor({
    userId: r.user_id,
    secret: r.secret,
    verifiedAt: r.verified_at === null ? null : new Date(Number(r.verified_at)),
    lastUsedStep: Number(r.last_used_step),
    backupCodes: JSON.parse(r.backup_codes) as Array<string | null>,
    version: Number(r.version),
    createdAt: new Date(Number(r.created_at)),
    updatedAt: new Date(Number(r.updated_at)),
  })
}

/** The two-factor methods on `db` (its statements prepared once, here). */
export function twoFactorMethods(db: SQLiteDatabase): TwoFactorAdapter {
  const q = {
    get: db.prepare("SELECT * FROM two_factor WHERE user_id = ?"),
    upsert: db.prepare(
      `INSERT INTO two_factor (user_id, secret, verified_at, last_used_step, backup_codes, version, created_at,
         updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, verified_at = excluded.verified_at,
         last_used_step = excluded.last_used_step, backup_codes = excluded.backup_codes, version = 0,
         created_at = excluded.created_at, updated_at = excluded.updated_at
       RETURNING *`,
    ),
    // One statement: the version compare and the write cannot be split by another writer.
    update: db.prepare(
      `UPDATE two_factor SET
         secret = CASE WHEN ? THEN ? ELSE secret END,
         verified_at = CASE WHEN ? THEN ? ELSE verified_at END,
         last_used_step = CASE WHEN ? THEN ? ELSE last_used_step END,
         backup_codes = CASE WHEN ? THEN ? ELSE backup_codes END,
         version = version + 1, updated_at = ?
       WHERE user_id = ? AND version = ? RETURNING *`,
    ),
    delete: db.prepare("DELETE FROM two_factor WHERE user_id = ? RETURNING *"),
  }
  const flag = (present: boolean): number => (present ? 1 : 0)
  return {
    async getTwoFactor(userId) {
      return fromRow(q.get.get(userId))
    },
    async upsertTwoFactor(row) {
      const r = copyTwoFactor(row)
      const stored = q.upsert.get(
        r.userId,
        r.secret,
        ms(r.verifiedAt),
        r.lastUsedStep,
        JSON.stringify(r.backupCodes),
        ms(r.createdAt),
        ms(r.updatedAt),
      )
      return fromRow(stored) as AdapterTwoFactor
    },
    async updateTwoFactor(userId, patch, { expectedVersion }) {
      const row = q.update.get(
        flag(patch.secret !== undefined),
        patch.secret ?? null,
        flag(patch.verifiedAt !== undefined),
        ms(patch.verifiedAt ?? null),
        flag(patch.lastUsedStep !== undefined),
        patch.lastUsedStep ?? 0,
        flag(patch.backupCodes !== undefined),
        JSON.stringify(patch.backupCodes ?? []),
        Date.now(),
        userId,
        expectedVersion,
      )
      return fromRow(row)
    },
    async deleteTwoFactor(userId) {
      return fromRow(q.delete.get(userId))
    },
  }
}

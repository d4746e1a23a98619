// The SQLite adapter's WebAuthn authenticators, with the counter's compare-and-swap.
import type { AuthenticatorAdapter } from "../adapter"
import { conflict, copyAuthenticator, notFound } from "../internal/models"
import { authenticatorFromRow, authenticatorValues, AUTHENTICATOR_INSERT_COLUMNS } from "../internal/rows"
import type { AuthenticatorRow } from "../internal/rows"
import type { SQLiteDatabase } from "./schema"
import { ms, rethrow, transaction } from "./sql"

/** The authenticator methods on `db` (its statements prepared once, here). */
export function authenticatorMethods(db: SQLiteDatabase): AuthenticatorAdapter {
  const q = {
    authenticator: db.prepare("SELECT * FROM authenticators WHERE credential_id = ?"),
    insertAuthenticator: db.prepare(
      `INSERT INTO authenticators (${AUTHENTICATOR_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    authenticatorsOf: db.prepare("SELECT * FROM authenticators WHERE user_id = ? ORDER BY rowid"),
    updateCounter: db.prepare("UPDATE authenticators SET counter = ? WHERE credential_id = ? RETURNING *"),
    swapCounter: db.prepare(
      `UPDATE authenticators SET counter = ?, last_used_at = ?
         WHERE credential_id = ? AND counter = ? AND counter <= ? RETURNING *`,
    ),
    deleteAuthenticator: db.prepare("DELETE FROM authenticators WHERE credential_id = ? RETURNING *"),
    renameAuthenticator: db.prepare("UPDATE authenticators SET name = ? WHERE credential_id = ? RETURNING *"),
    touchAuthenticator: db.prepare("UPDATE authenticators SET last_used_at = ? WHERE credential_id = ? RETURNING *"),
  }

  return {
    async getAuthenticator(credentialID) {
      const row = q.authenticator.get(credentialID)
      return row ? authenticatorFromRow(row as AuthenticatorRow) : null
    },
    async createAuthenticator(authenticator) {
      const a = copyAuthenticator(authenticator)
      try {
        const row = q.insertAuthenticator.get(...authenticatorValues(a, ms, (b) => (b ? 1 : 0)))
        return authenticatorFromRow(row as AuthenticatorRow)
      } catch (error) {
        return rethrow(error, { userId: a.userId }, () => conflict("Authenticator", { credentialID: a.credentialID }))
      }
    },
    async listAuthenticatorsByUserId(userId) {
      return q.authenticatorsOf.all(userId).map((row) => authenticatorFromRow(row as AuthenticatorRow))
    },
    async updateAuthenticatorCounter(credentialID, newCounter, opts) {
      if (opts?.expected !== undefined) {
        const swapped = q.swapCounter.get(newCounter, Date.now(), credentialID, opts.expected, newCounter)
        return swapped ? authenticatorFromRow(swapped as AuthenticatorRow) : null
      }
      const row = q.updateCounter.get(newCounter, credentialID)
      if (!row) throw notFound("Authenticator", credentialID)
      return authenticatorFromRow(row as AuthenticatorRow)
    },
    async deleteAuthenticator(credentialID) {
      const row = q.deleteAuthenticator.get(credentialID)
      return row ? authenticatorFromRow(row as AuthenticatorRow) : null
    },
    async updateAuthenticator(credentialID, patch) {
      return transaction(db, () => {
        let row = q.authenticator.get(credentialID)
        if (row && patch.name !== undefined) row = q.renameAuthenticator.get(patch.name, credentialID)
        if (row && patch.lastUsedAt !== undefined) row = q.touchAuthenticator.get(ms(patch.lastUsedAt), credentialID)
        return row ? authenticatorFromRow(row as AuthenticatorRow) : null
      })
    },
  }
}

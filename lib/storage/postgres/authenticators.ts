// The PostgreSQL adapter's WebAuthn authenticators, with the counter's compare-and-swap.
import type { AuthenticatorAdapter } from "../adapter"
import { conflict, copyAuthenticator, notFound } from "../internal/models"
import { authenticatorFromRow, authenticatorValues, AUTHENTICATOR_INSERT_COLUMNS } from "../internal/rows"
import type { AuthenticatorRow } from "../internal/rows"
import { queryOne, translate } from "./query"
import type { Queryable } from "./query"

/** The authenticator methods on `db`, with the tables in the quoted schema `s`. */
export function authenticatorMethods(db: Queryable, s: string): AuthenticatorAdapter {
  const one = <R>(sql: string, values: unknown[]) => queryOne<R>(db, sql, values)
  return {
    async getAuthenticator(credentialID) {
      const row = await one<AuthenticatorRow>(`SELECT * FROM ${s}.authenticators WHERE credential_id = $1`, [
        credentialID,
      ])
      return row ? authenticatorFromRow(row) : null
    },
    async createAuthenticator(authenticator) {
      const a = copyAuthenticator(authenticator)
      try {
        const row = await one<AuthenticatorRow>(
          `INSERT INTO ${s}.authenticators (${AUTHENTICATOR_INSERT_COLUMNS})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
          authenticatorValues(
            a,
            (d) => d,
            (b) => b,
          ),
        )
        return authenticatorFromRow(row as AuthenticatorRow)
      } catch (error) {
        return translate(error, a.userId, () => conflict("Authenticator", { credentialID: a.credentialID }))
      }
    },
    async listAuthenticatorsByUserId(userId) {
      const result = await db.query(`SELECT * FROM ${s}.authenticators WHERE user_id = $1 ORDER BY credential_id`, [
        userId,
      ])
      return result.rows.map((row) => authenticatorFromRow(row as AuthenticatorRow))
    },
    async updateAuthenticatorCounter(credentialID, newCounter, opts) {
      if (opts?.expected !== undefined) {
        // Compare-and-swap in one statement: of two racing updates from the same read, only one matches.
        const swapped = await one<AuthenticatorRow>(
          `UPDATE ${s}.authenticators SET counter = $2, last_used_at = $4
             WHERE credential_id = $1 AND counter = $3 AND counter <= $2 RETURNING *`,
          [credentialID, newCounter, opts.expected, new Date()],
        )
        return swapped ? authenticatorFromRow(swapped) : null
      }
      const row = await one<AuthenticatorRow>(
        `UPDATE ${s}.authenticators SET counter = $2 WHERE credential_id = $1 RETURNING *`,
        [credentialID, newCounter],
      )
      if (!row) throw notFound("Authenticator", credentialID)
      return authenticatorFromRow(row)
    },
    async deleteAuthenticator(credentialID) {
      const row = await one<AuthenticatorRow>(`DELETE FROM ${s}.authenticators WHERE credential_id = $1 RETURNING *`, [
        credentialID,
      ])
      return row ? authenticatorFromRow(row) : null
    },
    async updateAuthenticator(credentialID, patch) {
      const row = await one<AuthenticatorRow>(
        `UPDATE ${s}.authenticators
            SET name = CASE WHEN $2 THEN $3 ELSE name END, last_used_at = CASE WHEN $4 THEN $5 ELSE last_used_at END
          WHERE credential_id = $1 RETURNING *`,
        [
          credentialID,
          patch.name !== undefined,
          patch.name ?? null,
          patch.lastUsedAt !== undefined,
          patch.lastUsedAt ?? null,
        ],
      )
      return row ? authenticatorFromRow(row) : null
    },
  }
}

// PostgreSQL adapter on `pg`: foreign keys with cascades, one query per session check, transactions when asked.
// The methods live by the contract's groups (users.ts, sessions.ts, authenticators.ts); this file assembles them.
import type { Pool } from "pg"
import type { AccountTokenAdapter, Adapter } from "../adapter"
import type { KeyValueStore } from "../kv"
import { auditMethods } from "./audit"
import { authenticatorMethods } from "./authenticators"
import { passwordMethods } from "./passwords"
import { directoryMethods } from "./directory"
import { migrationHinted } from "./query"
import type { Queryable } from "./query"
import { quoteSchema } from "./schema"
import { sessionMethods } from "./sessions"
import { PostgresStore } from "./store"
import { twoFactorMethods } from "./two-factor"
import { userMethods } from "./users"

export { migrate, POSTGRES_SCHEMA } from "./schema"
export type { MigrateOptions, MigrateReport } from "./schema"

/** Options of {@link PostgresAdapter}. */
export interface PostgresAdapterOptions {
  /** The PostgreSQL schema holding the tables (see `migrate`). Default `public`. */
  schema?: string
}

/** The PostgreSQL adapter: every `Adapter` method, plus `transaction()` for writes that must succeed together. */
export type PostgresAdapterInstance = Required<Adapter> &
  AccountTokenAdapter & {
    /**
     * Runs `fn` with an adapter bound to one connection inside `BEGIN … COMMIT`; a rejection rolls everything back.
     *
     * @example
     * ```ts
     * await adapter.transaction(async (tx) => {
     *   const user = await tx.createUser(newUser)
     *   await tx.linkAccount({ ...account, userId: user.id })
     * })
     * ```
     */
    transaction<T>(fn: (tx: Required<Adapter>) => Promise<T>): Promise<T>
  }

function buildAdapter(db: Queryable, s: string, store: KeyValueStore): Required<Adapter> & AccountTokenAdapter {
  return {
    store,
    ...userMethods(db, s),
    ...sessionMethods(db, s),
    ...authenticatorMethods(db, s),
    ...twoFactorMethods(db, s),
    ...passwordMethods(db, s),
    ...auditMethods(db, s),
    ...directoryMethods(db, s),
  }
}

function ignoreIdleError(): void {
  // See PostgresAdapter: the failing queries, not idle disconnects, are what gets reported.
}

/**
 * Creates an adapter on a `pg` pool. Run {@link migrate} (or `schema.sql`) once first. Emails are stored as given and
 * matched with `lower(email) = lower($1)` (unique index on `lower(email)`). Deleting a user cascades to its accounts,
 * sessions and authenticators through foreign keys; `useVerificationToken` is one `DELETE … RETURNING` matching
 * identifier and token; `getSessionAndUser` is one query. Driver errors (connection refused, pool ended) are rethrown
 * unchanged for the core to wrap.
 *
 * @example
 * ```ts
 * import { Pool } from "pg"
 * import { PostgresAdapter, migrate } from "gatehouse-auth/adapters/postgres"
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL })
 * await migrate(pool)
 * app.use("/auth", ExpressAuth({ adapter: PostgresAdapter(pool), providers: [GitHub] }))
 * ```
 */
export function PostgresAdapter(pool: Pool, options: PostgresAdapterOptions = {}): PostgresAdapterInstance {
  const schemaName = options.schema ?? "public"
  const schema = quoteSchema(schemaName)
  // An idle pooled connection that the server (or a network hop) drops makes the pool emit "error"; with no listener
  // that crashes the process. The pool discards the broken client by itself and the next query reconnects, and the
  // queries that fail reject (and are logged by the core), so this listener only keeps the process alive.
  if (typeof pool.on === "function" && !pool.listeners("error").includes(ignoreIdleError)) {
    pool.on("error", ignoreIdleError)
  }
  // The key-value store always runs on the pool: its writes are single statements and must not roll back with a tx.
  const store = PostgresStore(pool, { schema: options.schema })
  return {
    ...buildAdapter(migrationHinted(pool, schemaName), schema, store),
    async transaction(fn) {
      const client = await pool.connect()
      let broken: Error | undefined
      // A checked-out client that loses its connection emits "error"; unheard, that would crash the process.
      const onError = (error: Error): void => {
        broken = error
      }
      client.on("error", onError)
      try {
        await client.query("BEGIN")
        const result = await fn(buildAdapter(migrationHinted(client, schemaName), schema, store))
        await client.query("COMMIT")
        return result
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error("Rollback failed")
        })
        throw error
      } finally {
        client.off("error", onError)
        client.release(broken)
      }
    },
  }
}

export default PostgresAdapter

// SQLite adapter: the embedded default, one database file, tables created on first use; on better-sqlite3 (Node),
// `bun:sqlite` (Bun) or `node:sqlite` (Deno, Node 22.5+). The methods live by the contract's groups (users.ts,
// sessions.ts, authenticators.ts); this file assembles them.
import type { AccountTokenAdapter, Adapter, IdpSessionAdapter } from "../adapter"
import { authenticatorMethods } from "./authenticators"
import { asSQLiteDatabase, openSQLite } from "./driver"
import type { SQLiteDriver } from "./driver"
import { addMissingColumns, SQLITE_SCHEMA } from "./schema"
import type { SQLiteDatabase } from "./schema"
import { passwordMethods } from "./passwords"
import { sessionMethods } from "./sessions"
import { SQLiteStore } from "./store"
import { twoFactorMethods } from "./two-factor"
import { userMethods } from "./users"

export type { SQLiteDatabase, SQLiteStatement } from "./schema"
export { defaultSQLiteDriver } from "./driver"
export type { SQLiteDriver } from "./driver"

/** Options of {@link SQLiteAdapter}. */
export interface SQLiteAdapterOptions {
  /**
   * The driver that opens a file path (ignored when a database is passed). Default: `bun:sqlite` on Bun, `node:sqlite`
   * on Deno, better-sqlite3 on Node when installed, else `node:sqlite` (Node 22.5+).
   */
  driver?: SQLiteDriver
}

/** The file used when `SQLiteAdapter()` is called without a database or path (relative to the working directory). */
export const DEFAULT_SQLITE_PATH = "gatehouse.sqlite"

/**
 * Creates an adapter on a SQLite database. Pass an open database (better-sqlite3's `Database`, `node:sqlite`'s
 * `DatabaseSync` or `bun:sqlite`'s `Database`), a file path, or nothing for {@link DEFAULT_SQLITE_PATH}. A path is
 * opened with the runtime's driver (see {@link SQLiteAdapterOptions.driver}), which is loaded only then; its folder
 * is created if missing. The tables (`users`, `accounts`, `sessions`, `verification_tokens`, `authenticators`) are
 * created if missing, the journal is switched to WAL and foreign keys are enforced on this connection. Emails are
 * stored as given and matched on a lower-cased copy (`email_key`, unique). Every method is one synchronous statement
 * or transaction, so each call is atomic on every driver; `useVerificationToken` is one `DELETE … RETURNING`, and the
 * drivers' constraint errors become the same coded errors.
 *
 * @example
 * ```ts
 * import { SQLiteAdapter } from "gatehouse-auth/adapters/sqlite"
 * const adapter = SQLiteAdapter(".data/auth.sqlite")
 * app.use("/auth", ExpressAuth({ adapter, providers: [GitHub] }))
 * ```
 */
export function SQLiteAdapter(
  dbOrPath: SQLiteDatabase | string = DEFAULT_SQLITE_PATH,
  options: SQLiteAdapterOptions = {},
): Required<Adapter> & IdpSessionAdapter & AccountTokenAdapter {
  const db = typeof dbOrPath === "string" ? openSQLite(dbOrPath, options.driver) : asSQLiteDatabase(dbOrPath)
  db.exec("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;")
  db.exec(SQLITE_SCHEMA)
  addMissingColumns(db)

  return {
    store: SQLiteStore(db),
    ...userMethods(db),
    ...sessionMethods(db),
    ...authenticatorMethods(db),
    ...twoFactorMethods(db),
    ...passwordMethods(db),
  }
}

export default SQLiteAdapter

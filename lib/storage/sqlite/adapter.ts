// SQLite adapter on better-sqlite3: the embedded default, one database file, tables created on first use.
// The methods live by the contract's groups (users.ts, sessions.ts, authenticators.ts); this file assembles them.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- better-sqlite3 ships no types; this shim types its constructor
/// <reference path="./better-sqlite3.d.ts" />
import BetterSqlite3 from "better-sqlite3"
import type { AccountTokenAdapter, Adapter, IdpSessionAdapter } from "../adapter"
import { authenticatorMethods } from "./authenticators"
import { addMissingColumns, SQLITE_SCHEMA } from "./schema"
import type { SQLiteDatabase } from "./schema"
import { sessionMethods } from "./sessions"
import { SQLiteStore } from "./store"
import { userMethods } from "./users"

export type { SQLiteDatabase, SQLiteStatement } from "./schema"

/** The file used when `SQLiteAdapter()` is called without a database or path (relative to the working directory). */
export const DEFAULT_SQLITE_PATH = "gatehouse.sqlite"

/**
 * Creates an adapter on a better-sqlite3 database. Pass an open `Database`, a file path, or nothing for
 * {@link DEFAULT_SQLITE_PATH}. The tables (`users`, `accounts`, `sessions`, `verification_tokens`, `authenticators`)
 * are created if missing, the journal is switched to WAL and foreign keys are enforced on this connection.
 * Emails are stored as given and matched on a lower-cased copy (`email_key`, unique). Every method is one
 * synchronous statement or transaction, so each call is atomic; `useVerificationToken` is one `DELETE … RETURNING`.
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
): Required<Adapter> & IdpSessionAdapter & AccountTokenAdapter {
  const db: SQLiteDatabase = typeof dbOrPath === "string" ? new BetterSqlite3(dbOrPath) : dbOrPath
  db.exec("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;")
  db.exec(SQLITE_SCHEMA)
  addMissingColumns(db)

  return { store: SQLiteStore(db), ...userMethods(db), ...sessionMethods(db), ...authenticatorMethods(db) }
}

export default SQLiteAdapter

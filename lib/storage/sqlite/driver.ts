// Opens a SQLite file with the runtime's driver and gives every driver's database the one shape the adapter uses.
import { mkdirSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, resolve } from "node:path"
import type { SQLiteDatabase, SQLiteStatement } from "./schema"

/** The drivers `SQLiteAdapter` can open a file with. */
export type SQLiteDriver = "better-sqlite3" | "node:sqlite" | "bun:sqlite"

// Loaded on demand and only the one in use: better-sqlite3 is a native addon that Bun and Deno cannot load, and
// `bun:sqlite` / `node:sqlite` exist only on their runtimes. A synchronous require keeps `SQLiteAdapter(path)`
// synchronous (the file and its tables exist when it returns); the build gives ES modules their `__filename`.
const load = createRequire(__filename)

type Constructor = new (path: string) => unknown

const runtime = globalThis as { Bun?: unknown; Deno?: unknown }

/** Whether `name` can be loaded here (installed, or built into this runtime). */
function loadable(name: string): boolean {
  try {
    load(name)
    return true
  } catch {
    return false
  }
}

/**
 * The driver of this runtime: `bun:sqlite` on Bun, `node:sqlite` on Deno, and on Node better-sqlite3 when it is
 * installed, else `node:sqlite` (Node 22.5 and later). Throws a coded error when there is none.
 *
 * @example
 * ```ts
 * defaultSQLiteDriver() // "better-sqlite3" on Node with better-sqlite3 installed
 * ```
 */
export function defaultSQLiteDriver(): SQLiteDriver {
  if (runtime.Bun !== undefined) return "bun:sqlite"
  if (runtime.Deno !== undefined) return "node:sqlite"
  if (loadable("better-sqlite3")) return "better-sqlite3"
  if (loadable("node:sqlite")) return "node:sqlite"
  throw Object.assign(new Error("No SQLite driver: install better-sqlite3 (or use Node 22.5+, Bun or Deno)"), {
    code: "ERR_MODULE_NOT_FOUND",
    cause: { tried: ["better-sqlite3", "node:sqlite"] },
  })
}

/**
 * Creates the folder of a database file when it is missing, readable by this user only, as SQLite creates the file
 * itself: the path names where the data should live, and a missing folder is the usual first-run state (`.data/`).
 * In-memory databases and `file:` URIs are left to the driver.
 */
function ensureFolder(path: string): void {
  if (path === "" || path === ":memory:" || path.startsWith("file:")) return
  mkdirSync(dirname(resolve(path)), { recursive: true, mode: 0o700 })
}

/**
 * Opens (creating if needed) the SQLite file at `path` with `driver` (default: {@link defaultSQLiteDriver}).
 *
 * @example
 * ```ts
 * const db = openSQLite(".data/auth.sqlite") // the folder is created if missing
 * ```
 */
export function openSQLite(path: string, driver: SQLiteDriver = defaultSQLiteDriver()): SQLiteDatabase {
  ensureFolder(path)
  const Database =
    driver === "bun:sqlite"
      ? (load("bun:sqlite") as { Database: Constructor }).Database
      : driver === "node:sqlite"
        ? (load("node:sqlite") as { DatabaseSync: Constructor }).DatabaseSync
        : (load("better-sqlite3") as Constructor)
  return asSQLiteDatabase(new Database(path) as SQLiteDatabase)
}

/** SQLite's result codes by number, for the errors of `node:sqlite`, which carry only the number. */
const resultCodes: Readonly<Record<number, string>> = {
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  8: "SQLITE_READONLY",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  19: "SQLITE_CONSTRAINT",
  275: "SQLITE_CONSTRAINT_CHECK",
  787: "SQLITE_CONSTRAINT_FOREIGNKEY",
  1299: "SQLITE_CONSTRAINT_NOTNULL",
  1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
  2067: "SQLITE_CONSTRAINT_UNIQUE",
}

/**
 * A driver error with SQLite's code name in `code`, as better-sqlite3 and `bun:sqlite` give it: `node:sqlite` throws
 * `ERR_SQLITE_ERROR` with the (extended) result code as a number in `errcode`. Other errors pass unchanged.
 */
function withCodeName(error: unknown): unknown {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown }
  if (code !== "ERR_SQLITE_ERROR" || typeof errcode !== "number") return error
  const name = resultCodes[errcode] ?? resultCodes[errcode & 0xff]
  if (name === undefined) return error
  return Object.assign(new Error((error as Error).message, { cause: error }), { code: name, errcode })
}

function guard<T>(fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    throw withCodeName(error)
  }
}

const normalized = new WeakSet<object>()

/**
 * Gives a better-sqlite3, `node:sqlite` or `bun:sqlite` database one behaviour: `get` answers `undefined` for no row
 * (`bun:sqlite` answers `null`) and errors carry SQLite's code name (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_BUSY`).
 *
 * @example
 * ```ts
 * const db = asSQLiteDatabase(new DatabaseSync(".data/auth.sqlite"))
 * ```
 */
export function asSQLiteDatabase(db: SQLiteDatabase): SQLiteDatabase {
  if (normalized.has(db)) return db
  const out: SQLiteDatabase = {
    prepare(sql) {
      const statement = guard(() => db.prepare(sql))
      const wrapped: SQLiteStatement = {
        run: (...params) => guard(() => statement.run(...params)),
        get: (...params) => guard(() => statement.get(...params) ?? undefined),
        all: (...params) => guard(() => statement.all(...params)),
      }
      return wrapped
    },
    exec: (sql) => guard(() => db.exec(sql)),
  }
  normalized.add(out)
  return out
}

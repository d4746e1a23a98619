// The adapter and key-value store contracts on the SQLite driver of the runtime that runs this file (bundled for Bun
// and Deno by sqlite.test.ts): bun:sqlite on Bun, node:sqlite on Deno, better-sqlite3 on Node.
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { installGlobals, run } from "./harness"
import { runAdapterContract } from "../adapters/contract"
import { runStoreContract } from "../store/contract"
import { SQLiteAdapter, defaultSQLiteDriver } from "../../lib/storage/sqlite/adapter"
import { SQLiteStore } from "../../lib/storage/sqlite/store"
import { openSQLite } from "../../lib/storage/sqlite/driver"

installGlobals()

const dir = mkdtempSync(join(tmpdir(), "gatehouse-runtime-sqlite-"))
const driver = defaultSQLiteDriver()

runAdapterContract(`sqlite on ${driver}`, async () => ({
  adapter: SQLiteAdapter(join(dir, "contract.sqlite")),
  teardown: async () => undefined,
}))

runStoreContract(`sqlite on ${driver}`, async () => {
  const file = join(dir, "kv.sqlite")
  const first = openSQLite(file)
  first.exec("PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;")
  const second = openSQLite(file)
  second.exec("PRAGMA busy_timeout = 5000;")
  return { store: SQLiteStore(first), sibling: SQLiteStore(second) }
})

describe(`SQLite on ${driver}`, () => {
  it("is the driver this runtime should use", () => {
    const runtime = globalThis as { Bun?: unknown; Deno?: unknown }
    const expected = runtime.Bun ? "bun:sqlite" : runtime.Deno ? "node:sqlite" : "better-sqlite3"
    expect(driver).toBe(expected)
  })

  it("opens a file path in a folder that does not exist yet, creating the folder", async () => {
    const file = join(dir, "missing", "nested", "auth.sqlite")
    const adapter = SQLiteAdapter(file)
    expect(existsSync(file)).toBe(true)
    await adapter.createUser({ id: "u1", email: "first@example.com", emailVerified: null })
    await expect(adapter.getUserByEmail("FIRST@example.com")).resolves.toMatchObject({ id: "u1" })
  })

  it("gives a driver's constraint error SQLite's code name", () => {
    const db = openSQLite(join(dir, "codes.sqlite"))
    db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, u TEXT UNIQUE)")
    db.prepare("INSERT INTO t VALUES (?, ?)").run("a", "x")
    expect(() => db.prepare("INSERT INTO t VALUES (?, ?)").run("a", "y")).toThrow(
      expect.objectContaining({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" }),
    )
    expect(() => db.prepare("INSERT INTO t VALUES (?, ?)").run("b", "x")).toThrow(
      expect.objectContaining({ code: "SQLITE_CONSTRAINT_UNIQUE" }),
    )
    expect(db.prepare("SELECT * FROM t WHERE k = ?").get("none")).toBeUndefined()
  })

  it("a duplicate email is adapter_conflict", async () => {
    const adapter = SQLiteAdapter(join(dir, "conflict.sqlite"))
    await adapter.createUser({ id: "u1", email: "same@example.com", emailVerified: null })
    await expect(
      adapter.createUser({ id: "u2", email: "Same@Example.com", emailVerified: null }),
    ).rejects.toMatchObject({ code: "adapter_conflict" })
  })
})

void run().then((failed) => {
  rmSync(dir, { recursive: true, force: true })
  process.exit(failed === 0 ? 0 : 1)
})

// The SQLite store passes the contract on a database file opened twice; the adapter creates and uses the same table.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import { SQLiteStore } from "../../lib/storage/sqlite/store"
import { runStoreContract } from "./contract"

describe("SQLite store", () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-kv-"))
  const file = join(dir, "kv.sqlite")
  const first = new Database(file)
  first.exec("PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;")
  const second = new Database(file)
  second.exec("PRAGMA busy_timeout = 5000;")

  afterAll(() => {
    first.close()
    second.close()
    rmSync(dir, { recursive: true, force: true })
  })

  runStoreContract("sqlite", async () => ({ store: SQLiteStore(first), sibling: SQLiteStore(second) }))

  it("is the SQLite adapter's store on the same database", async () => {
    const adapter = SQLiteAdapter(first)
    await adapter.store.set("from-adapter", "yes", 60)
    await expect(SQLiteStore(second).get(["from-adapter"])).resolves.toEqual(["yes"])
  })
})

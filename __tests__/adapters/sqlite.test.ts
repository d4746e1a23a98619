// The SQLite adapter passes the contract on a temporary file, and creates its schema in a new file.
import { mkdtempSync, rmSync, existsSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import { SQLiteAdapter } from "../../lib/adapters/sqlite"
import SQLiteAdapterDefault from "../../lib/adapters/sqlite"
import { runAdapterContract } from "./contract"

const dir = mkdtempSync(join(tmpdir(), "gatehouse-sqlite-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

runAdapterContract("sqlite", async () => {
  const db = new Database(join(dir, "contract.sqlite"))
  return { adapter: SQLiteAdapter(db), teardown: async () => void db.close() }
})

describe("SQLiteAdapter", () => {
  it("is the default export too", () => {
    expect(SQLiteAdapterDefault).toBe(SQLiteAdapter)
  })

  it("creates the file and its tables on first use, in WAL mode", async () => {
    const file = join(dir, "fresh.sqlite")
    expect(existsSync(file)).toBe(false)
    const adapter = SQLiteAdapter(file)
    expect(existsSync(file)).toBe(true)
    await adapter.createUser({ id: "u1", email: "first@example.com", emailVerified: null })
    const check = new Database(file)
    const tables = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()
    expect(tables.map((t) => (t as { name: string }).name)).toEqual([
      "accounts",
      "authenticators",
      "sessions",
      "users",
      "verification_tokens",
    ])
    expect(check.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" })
    expect(check.prepare("SELECT id, email, email_key FROM users").all()).toEqual([
      { id: "u1", email: "first@example.com", email_key: "first@example.com" },
    ])
    check.close()
  })

  it("reopens an existing file without losing data", async () => {
    const file = join(dir, "reopen.sqlite")
    const first = new Database(file)
    await SQLiteAdapter(first).createUser({ id: "u1", email: "Keep@Example.com", emailVerified: new Date(0) })
    first.close()
    const second = new Database(file)
    const user = await SQLiteAdapter(second).getUserByEmail("keep@example.com")
    expect(user).toMatchObject({ id: "u1", email: "Keep@Example.com", emailVerified: new Date(0) })
    second.close()
  })

  it("stores dates as epoch milliseconds", async () => {
    const db = new Database(join(dir, "dates.sqlite"))
    const adapter = SQLiteAdapter(db)
    await adapter.createUser({ id: "u1", email: "d@example.com", emailVerified: null })
    await adapter.createSession({ sessionToken: "t1", userId: "u1", expires: new Date(1_700_000_000_123) })
    expect(db.prepare("SELECT expires FROM sessions").get()).toEqual({ expires: 1_700_000_000_123 })
    db.close()
  })

  it("enforces foreign keys on the connection it was given", async () => {
    const db = new Database(join(dir, "fk.sqlite"))
    SQLiteAdapter(db)
    expect(() => db.prepare("INSERT INTO sessions VALUES ('t', 'no-such-user', 0)").run()).toThrow(/FOREIGN KEY/)
    db.close()
  })

  it("a verification token is consumed once across two connections to one file", async () => {
    const file = join(dir, "two.sqlite")
    const a = new Database(file)
    const b = new Database(file)
    const adapterA = SQLiteAdapter(a)
    const adapterB = SQLiteAdapter(b)
    const token = { identifier: "x@example.com", token: "abc", expires: new Date(Date.now() + 60_000) }
    await adapterA.createVerificationToken(token)
    const results = await Promise.all([adapterA.useVerificationToken(token), adapterB.useVerificationToken(token)])
    expect(results.filter((r) => r !== null)).toEqual([token])
    a.close()
    b.close()
  })
})

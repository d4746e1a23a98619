// The PostgreSQL store passes the contract in its own schema, with two pools; migrate() creates its table.
import { Pool } from "pg"
import { PostgresAdapter, migrate } from "../../lib/storage/postgres/adapter"
import { PostgresStore } from "../../lib/storage/postgres/store"
import { DATABASE_URL, POSTGRES, describeWithService, randomSuffix } from "../adapters/services"
import { runStoreContract } from "./contract"

describeWithService(POSTGRES, "PostgreSQL store", () => {
  const schema = `gatehouse_test_${randomSuffix()}`
  const pool = new Pool({ connectionString: DATABASE_URL, max: 8 })
  const other = new Pool({ connectionString: DATABASE_URL, max: 8 })

  beforeAll(async () => {
    await migrate(pool, { schema })
  })
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await Promise.all([pool.end(), other.end()])
  })

  runStoreContract("postgres", async () => ({
    store: PostgresStore(pool, { schema }),
    sibling: PostgresStore(other, { schema }),
  }))

  it("is the adapter's store, in the adapter's schema, and deletes expired rows on a later write", async () => {
    const adapter = PostgresAdapter(pool, { schema })
    jest.useFakeTimers({ now: Date.now(), doNotFake: ["nextTick", "setImmediate", "queueMicrotask", "setTimeout"] })
    try {
      await adapter.store.set("old", "1", 1)
      jest.setSystemTime(Date.now() + 120_000)
      await adapter.store.set("new", "2", 60)
      const { rows } = await pool.query(`SELECT key FROM "${schema}".gatehouse_kv WHERE key IN ('old', 'new')`)
      expect(rows).toEqual([{ key: "new" }])
    } finally {
      jest.useRealTimers()
    }
  })

  it("rejects a bad schema name as a caller's mistake", () => {
    expect(() => PostgresStore(pool, { schema: 'x"; DROP' })).toThrow(TypeError)
  })
})

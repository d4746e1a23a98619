// The PostgreSQL adapter and store through PgBouncer in transaction pooling mode: no named prepared statements, no
// session advisory locks, no SET without LOCAL, no LISTEN. The contracts pass with every query through PgBouncer,
// migrate() included. (The three-instance test runs through it too: __tests__/e2e/multi-instance.test.ts.)
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Pool } from "pg"
import { PostgresAdapter, migrate } from "../../lib/storage/postgres/adapter"
import { PostgresStore } from "../../lib/storage/postgres/store"
import { runStoreContract } from "../store/contract"
import { runAdapterContract } from "./contract"
import { DATABASE_URL, PGBOUNCER, PGBOUNCER_URL, describeWithService, randomSuffix } from "./services"

describeWithService(PGBOUNCER, "PostgreSQL through PgBouncer (transaction pooling)", () => {
  const schema = `gatehouse_bouncer_${randomSuffix()}`
  const pool = new Pool({ connectionString: PGBOUNCER_URL, max: 8 })
  const other = new Pool({ connectionString: PGBOUNCER_URL, max: 8 })

  beforeAll(async () => {
    await migrate(pool, { schema })
  })
  afterAll(async () => {
    const direct = new Pool({ connectionString: DATABASE_URL, max: 1 })
    await direct.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await Promise.all([pool.end(), other.end(), direct.end()])
  })

  it("PgBouncer pools by transaction (control)", async () => {
    const admin = new Pool({ connectionString: PGBOUNCER_URL.replace(/\/[^/]*$/, "/pgbouncer"), max: 1 })
    try {
      const { rows } = await admin.query("SHOW CONFIG")
      expect(rows.find((row: { key: string }) => row.key === "pool_mode")).toMatchObject({ value: "transaction" })
    } finally {
      await admin.end()
    }
  })

  runAdapterContract("postgres through PgBouncer", async () => ({
    adapter: PostgresAdapter(pool, { schema }),
    teardown: async () => undefined,
  }))

  runStoreContract("postgres through PgBouncer", async () => ({
    store: PostgresStore(pool, { schema }),
    sibling: PostgresStore(other, { schema }),
  }))

  it("transaction() commits and rolls back through PgBouncer", async () => {
    const adapter = PostgresAdapter(pool, { schema })
    await adapter.transaction(async (tx) => {
      await tx.createUser({ id: "bouncer-tx", email: "bouncer-tx@example.com", emailVerified: null })
      await tx.linkAccount({ userId: "bouncer-tx", type: "oauth", provider: "github", providerAccountId: "b-1" })
    })
    await expect(
      adapter.transaction(async (tx) => {
        await tx.createUser({ id: "bouncer-half", email: "bouncer-half@example.com", emailVerified: null })
        await tx.linkAccount({ userId: "bouncer-half", type: "oauth", provider: "github", providerAccountId: "b-1" })
      }),
    ).rejects.toMatchObject({ code: "adapter_conflict" })
    expect((await adapter.getUserByAccount({ provider: "github", providerAccountId: "b-1" }))?.id).toBe("bouncer-tx")
    await expect(adapter.getUser("bouncer-half")).resolves.toBeNull()
  })

  it("migrate() is idempotent through PgBouncer, also when two run at once", async () => {
    await Promise.all([migrate(pool, { schema }), migrate(other, { schema })])
    const { rows } = await pool.query(
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1",
      [schema],
    )
    // One of each table the schema creates, however often it ran.
    const tables = (
      readFileSync(join(__dirname, "../../lib/storage/postgres/schema.sql"), "utf8").match(/CREATE TABLE/g) ?? []
    ).length
    expect(tables).toBeGreaterThanOrEqual(8)
    expect(rows).toEqual([{ n: tables }])
  })
})

// migrate() reports what it added (accounts spec §6.2): the tables it created, the columns it added to tables that
// existed, and the indexes it created, in the order of schema.sql; nothing once the schema is current. On a real
// PostgreSQL, in schemas of this suite's own.
import { Pool } from "pg"
import { migrate } from "../../lib/storage/postgres/adapter"
import { DATABASE_URL, POSTGRES, describeWithService, randomSuffix } from "./services"

const ALL_TABLES = [
  "users",
  "accounts",
  "sessions",
  "verification_tokens",
  "authenticators",
  "two_factor",
  "gatehouse_kv",
  "audit_events",
]
const ALL_INDEXES = [
  "users_email_lower",
  "users_email_key_id",
  "accounts_user_id",
  "sessions_user_id",
  "sessions_idp_sid",
  "sessions_idp_sub",
  "authenticators_user_id",
  "gatehouse_kv_expires_at",
  "audit_events_user_at",
  "audit_events_at",
  "audit_events_type_at",
]

describeWithService(POSTGRES, "PostgreSQL migrate() reports what it added", () => {
  const pool = new Pool({ connectionString: DATABASE_URL, max: 2 })
  const schemas: string[] = []
  const newSchema = () => {
    const name = `migrate_report_${randomSuffix()}`
    schemas.push(name)
    return name
  }

  afterAll(async () => {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await pool.end()
  })

  it("an empty schema: every table and index, no column (they came with their tables); then nothing", async () => {
    const schema = newSchema()
    expect(await migrate(pool, { schema })).toEqual({ tables: ALL_TABLES, columns: [], indexes: ALL_INDEXES })
    expect(await migrate(pool, { schema })).toEqual({ tables: [], columns: [], indexes: [] })
  })

  it("a schema of an earlier version: only the missing columns, tables and indexes", async () => {
    const schema = newSchema()
    // The first release's users and sessions tables, without the later columns, indexes and tables.
    await pool.query(`CREATE SCHEMA "${schema}"`)
    await pool.query(`
      CREATE TABLE "${schema}".users (
        id text PRIMARY KEY, name text, email text, email_verified timestamptz, image text,
        extra jsonb NOT NULL DEFAULT '{}'
      );
      CREATE UNIQUE INDEX users_email_lower ON "${schema}".users (lower(email));
      CREATE TABLE "${schema}".sessions (
        session_token text PRIMARY KEY,
        user_id text NOT NULL REFERENCES "${schema}".users (id) ON DELETE CASCADE,
        expires timestamptz NOT NULL,
        created_at timestamptz, last_active_at timestamptz, user_agent text, ip text
      );
      CREATE INDEX sessions_user_id ON "${schema}".sessions (user_id);
      INSERT INTO "${schema}".users (id, email) VALUES ('u-1', 'ada@example.test');
    `)
    const report = await migrate(pool, { schema })
    expect(report.tables).toEqual(ALL_TABLES.filter((t) => t !== "users" && t !== "sessions"))
    expect(report.columns).toEqual([
      "users.role",
      "users.banned",
      "users.ban_reason",
      "users.ban_expires",
      "sessions.provider",
      "sessions.idp_sid",
      "sessions.idp_sub",
      "sessions.auth_time",
      "sessions.impersonated_by",
    ])
    expect(report.indexes).toEqual(ALL_INDEXES.filter((i) => i !== "users_email_lower" && i !== "sessions_user_id"))
    // What it reports is there, and the existing row kept its data.
    const { rows } = await pool.query(`SELECT id, email, banned, role FROM "${schema}".users`)
    expect(rows).toEqual([{ id: "u-1", email: "ada@example.test", banned: false, role: null }])
    expect(await migrate(pool, { schema })).toEqual({ tables: [], columns: [], indexes: [] })
  })

  it("a caller that ignores the answer still just awaits it", async () => {
    const schema = newSchema()
    const ready: Promise<unknown> = migrate(pool, { schema })
    await expect(ready).resolves.toBeDefined()
  })
})

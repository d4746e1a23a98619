// The PostgreSQL adapter passes the contract in its own schema; migrate() is idempotent and schema.sql stays in sync.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Pool } from "pg"
import { PostgresAdapter, POSTGRES_SCHEMA, migrate } from "../../lib/storage/postgres/adapter"
import PostgresAdapterDefault from "../../lib/storage/postgres/adapter"
import { PostgresStore } from "../../lib/storage/postgres/store"
import { wrapAdapter } from "../../lib/core/kernel/config/adapter"
import { createLogger } from "../../lib/logger"
import { runAdapterContract } from "./contract"
import { seedEverything, tokenIdentifiers } from "./deletion"
import { DATABASE_URL, POSTGRES, describeWithService, randomSuffix } from "./services"

describeWithService(POSTGRES, "PostgreSQL adapter", () => {
  const schema = `gatehouse_test_${randomSuffix()}`
  const pool = new Pool({ connectionString: DATABASE_URL, max: 8 })

  beforeAll(async () => {
    await migrate(pool, { schema })
  })
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await pool.end()
  })

  runAdapterContract("postgres", async () => ({
    adapter: PostgresAdapter(pool, { schema }),
    teardown: async () => undefined,
  }))

  it("deleteUser (accounts.md §6.3) leaves 0 rows of the user in every table (direct SQL), another user's intact", async () => {
    const adapter = PostgresAdapter(pool, { schema })
    await seedEverything(adapter, "del-u1", "Gone-PG@Example.com")
    await seedEverything(adapter, "del-u2", "kept-pg@example.com")
    const count = async (sql: string, args: unknown[]) =>
      Number((await pool.query<{ n: string }>(sql.replaceAll("$s", `"${schema}"`), args)).rows[0]!.n)
    const rowsOf = async (id: string, email: string) => ({
      users: await count("SELECT count(*) AS n FROM $s.users WHERE id = $1", [id]),
      accounts: await count("SELECT count(*) AS n FROM $s.accounts WHERE user_id = $1", [id]),
      passwords: await count("SELECT count(*) AS n FROM $s.accounts WHERE user_id = $1 AND provider = 'password'", [
        id,
      ]),
      sessions: await count("SELECT count(*) AS n FROM $s.sessions WHERE user_id = $1", [id]),
      impersonation: await count(
        "SELECT count(*) AS n FROM $s.sessions WHERE user_id = $1 AND impersonated_by IS NOT NULL",
        [id],
      ),
      authenticators: await count("SELECT count(*) AS n FROM $s.authenticators WHERE user_id = $1", [id]),
      twoFactor: await count("SELECT count(*) AS n FROM $s.two_factor WHERE user_id = $1", [id]),
      tokens: await count("SELECT count(*) AS n FROM $s.verification_tokens WHERE identifier = ANY($1)", [
        tokenIdentifiers(email),
      ]),
    })
    const full = {
      users: 1,
      accounts: 2,
      passwords: 1,
      sessions: 2,
      impersonation: 1,
      authenticators: 1,
      twoFactor: 1,
      tokens: 4,
    }
    expect(await rowsOf("del-u1", "Gone-PG@Example.com")).toEqual(full)
    await adapter.deleteUser("del-u1")
    expect(await rowsOf("del-u1", "Gone-PG@Example.com")).toEqual(
      Object.fromEntries(Object.keys(full).map((k) => [k, 0])),
    )
    expect(await rowsOf("del-u2", "kept-pg@example.com")).toEqual(full)
  })

  it("is the default export too", () => {
    expect(PostgresAdapterDefault).toBe(PostgresAdapter)
  })

  it("schema.sql and the embedded schema are the same text", () => {
    const file = readFileSync(join(__dirname, "../../lib/storage/postgres/schema.sql"), "utf8")
    expect(POSTGRES_SCHEMA).toBe(file)
  })

  it("migrate is idempotent and keeps data", async () => {
    const adapter = PostgresAdapter(pool, { schema })
    await adapter.createUser({ id: "migrate-keep", email: "keep@example.com", emailVerified: null })
    await migrate(pool, { schema })
    await Promise.all([migrate(pool, { schema }), migrate(pool, { schema })])
    expect((await adapter.getUser("migrate-keep"))?.email).toBe("keep@example.com")
  })

  it("migrate adds the administration columns to a users table of an earlier version; values kept in extra still read", async () => {
    const old = `gatehouse_old_${randomSuffix()}`
    try {
      await pool.query(`CREATE SCHEMA "${old}"`)
      await pool.query(`CREATE TABLE "${old}".users (id text PRIMARY KEY, name text, email text,
        email_verified timestamptz, image text, extra jsonb NOT NULL DEFAULT '{}')`)
      const legacyBan = { banned: true, banReason: "spam", banExpires: "2031-01-02T03:04:05.678Z", nickname: "x" }
      await pool.query(
        `INSERT INTO "${old}".users (id, email, extra) VALUES
           ('u-admin', 'admin@example.com', '{"role":"admin"}'), ('u-banned', 'banned@example.com', $1),
           ('u-plain', 'plain@example.com', '{}')`,
        [JSON.stringify(legacyBan)],
      )
      await migrate(pool, { schema: old })
      await migrate(pool, { schema: old })
      const columns = await pool.query<{ column_name: string }>(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'users'",
        [old],
      )
      expect(columns.rows.map((r) => r.column_name)).toEqual(
        expect.arrayContaining(["role", "banned", "ban_reason", "ban_expires"]),
      )
      const index = await pool.query("SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = $2", [
        old,
        "users_email_key_id",
      ])
      expect(index.rowCount).toBe(1)
      const adapter = PostgresAdapter(pool, { schema: old })
      expect(await adapter.getUser("u-admin")).toMatchObject({ role: "admin", banned: false, banReason: null })
      const banned = await adapter.getUser("u-banned")
      expect(banned).toMatchObject({ role: null, banned: true, banReason: "spam", nickname: "x" })
      expect(banned?.banExpires?.toISOString()).toBe("2031-01-02T03:04:05.678Z")
      const listed = await adapter.listUsers({ limit: 10 })
      expect(listed.map((u) => [u.id, u.role, u.banned])).toEqual([
        ["u-admin", "admin", false],
        ["u-banned", null, true],
        ["u-plain", null, false],
      ])
      await adapter.updateUser({ id: "u-banned", banned: false, banReason: null, banExpires: null })
      await adapter.updateUser({ id: "u-admin", role: "editor" })
      const until = new Date(1_900_000_000_000)
      await adapter.createUser({
        id: "u-new",
        email: "new@example.com",
        emailVerified: null,
        banned: true,
        banExpires: until,
      })
      const row = async (id: string) =>
        (
          await pool.query(`SELECT role, banned, ban_reason, ban_expires, extra FROM "${old}".users WHERE id = $1`, [
            id,
          ])
        ).rows[0]
      expect(await row("u-banned")).toEqual({
        role: null,
        banned: false,
        ban_reason: null,
        ban_expires: null,
        extra: { nickname: "x" },
      })
      expect(await row("u-admin")).toEqual({
        role: "editor",
        banned: false,
        ban_reason: null,
        ban_expires: null,
        extra: {},
      })
      expect(await row("u-new")).toEqual({ role: null, banned: true, ban_reason: null, ban_expires: until, extra: {} })
      expect(await adapter.getUser("u-banned")).toMatchObject({ banned: false, banReason: null, banExpires: null })
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${old}" CASCADE`)
    }
  })

  it("migrate adds the session-management columns to a sessions table created by an earlier version", async () => {
    const old = `gatehouse_old_${randomSuffix()}`
    try {
      await pool.query(`CREATE SCHEMA "${old}"`)
      await pool.query(`CREATE TABLE "${old}".users (id text PRIMARY KEY, name text, email text,
        email_verified timestamptz, image text, extra jsonb NOT NULL DEFAULT '{}')`)
      await pool.query(`CREATE TABLE "${old}".sessions (session_token text PRIMARY KEY,
        user_id text NOT NULL REFERENCES "${old}".users (id) ON DELETE CASCADE, expires timestamptz NOT NULL)`)
      const expires = new Date(Date.now() + 3_600_000)
      await pool.query(`INSERT INTO "${old}".users (id, email) VALUES ('u-old', 'old@example.com')`)
      await pool.query(`INSERT INTO "${old}".sessions VALUES ('raw-token', 'u-old', $1)`, [expires])
      await migrate(pool, { schema: old })
      const adapter = PostgresAdapter(pool, { schema: old })
      expect((await adapter.getSessionAndUser("raw-token"))?.session).toEqual({
        sessionToken: "raw-token",
        userId: "u-old",
        expires,
      })
      const now = new Date()
      await adapter.updateSession({ sessionToken: "raw-token", lastActiveAt: now })
      expect(await adapter.listSessionsByUserId("u-old")).toEqual([
        { sessionToken: "raw-token", userId: "u-old", expires, lastActiveAt: now },
      ])
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${old}" CASCADE`)
    }
  })

  it("migrate adds dpop_key to an accounts table of an earlier version, twice without error", async () => {
    const old = `gatehouse_old_${randomSuffix()}`
    try {
      await pool.query(`CREATE SCHEMA "${old}"`)
      await pool.query(`CREATE TABLE "${old}".users (id text PRIMARY KEY, name text, email text,
        email_verified timestamptz, image text, extra jsonb NOT NULL DEFAULT '{}')`)
      await pool.query(`CREATE TABLE "${old}".accounts (user_id text NOT NULL REFERENCES "${old}".users (id),
        type text NOT NULL, provider text NOT NULL, provider_account_id text NOT NULL, access_token text,
        refresh_token text, expires_at bigint, token_type text, scope text, id_token text, session_state text,
        extra jsonb NOT NULL DEFAULT '{}', PRIMARY KEY (provider, provider_account_id))`)
      await pool.query(`INSERT INTO "${old}".users (id, email) VALUES ('u-old', 'old@example.com')`)
      await pool.query(`INSERT INTO "${old}".accounts (user_id, type, provider, provider_account_id, access_token)
        VALUES ('u-old', 'oidc', 'bank', 'acct-1', 'at-old')`)
      await migrate(pool, { schema: old })
      await migrate(pool, { schema: old })
      const adapter = PostgresAdapter(pool, { schema: old })
      const key = { provider: "bank", providerAccountId: "acct-1" }
      expect(await adapter.updateAccountTokens(key, { dpop_key: "gh1.k" })).toMatchObject({
        access_token: "at-old",
        dpop_key: "gh1.k",
      })
      expect(await adapter.getAccount("acct-1", "bank")).toMatchObject({ dpop_key: "gh1.k" })
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${old}" CASCADE`)
    }
  })

  it("migrate adds the OIDC logout columns and indexes to a sessions table of an earlier version", async () => {
    const old = `gatehouse_old_${randomSuffix()}`
    try {
      await pool.query(`CREATE SCHEMA "${old}"`)
      await pool.query(`CREATE TABLE "${old}".users (id text PRIMARY KEY, name text, email text,
        email_verified timestamptz, image text, extra jsonb NOT NULL DEFAULT '{}')`)
      // The sessions table as the session-management release left it: no OIDC columns.
      await pool.query(`CREATE TABLE "${old}".sessions (session_token text PRIMARY KEY,
        user_id text NOT NULL REFERENCES "${old}".users (id) ON DELETE CASCADE, expires timestamptz NOT NULL,
        created_at timestamptz, last_active_at timestamptz, user_agent text, ip text)`)
      const expires = new Date(Date.now() + 3_600_000)
      await pool.query(`INSERT INTO "${old}".users (id, email) VALUES ('u-old', 'old@example.com')`)
      await pool.query(
        `INSERT INTO "${old}".sessions (session_token, user_id, expires) VALUES ('raw-token', 'u-old', $1)`,
        [expires],
      )
      await migrate(pool, { schema: old })
      const columns = await pool.query(
        `SELECT column_name, data_type FROM information_schema.columns
           WHERE table_schema = $1 AND table_name = 'sessions' AND column_name IN ('provider', 'idp_sid', 'idp_sub', 'auth_time')
           ORDER BY column_name`,
        [old],
      )
      expect(columns.rows).toEqual([
        { column_name: "auth_time", data_type: "bigint" },
        { column_name: "idp_sid", data_type: "text" },
        { column_name: "idp_sub", data_type: "text" },
        { column_name: "provider", data_type: "text" },
      ])
      const indexes = await pool.query("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1", [old])
      const defs = Object.fromEntries(
        indexes.rows.map((r: { indexname: string; indexdef: string }) => [r.indexname, r.indexdef]),
      )
      expect(defs.sessions_idp_sid).toMatch(/\(provider, idp_sid\)/)
      expect(defs.sessions_idp_sub).toMatch(/\(provider, idp_sub\)/)

      const adapter = PostgresAdapter(pool, { schema: old })
      const fresh = {
        sessionToken: "new-token",
        userId: "u-old",
        expires,
        provider: "corp",
        idpSid: "sid-1",
        idpSub: "old@corp",
        authTime: 1_900_000_000,
      }
      await adapter.createSession(fresh)
      // The row from before the columns existed is never matched; the new one is.
      await expect(adapter.deleteSessionsByIdp({ provider: "corp", idpSub: "old@corp" })).resolves.toEqual([fresh])
      expect((await adapter.getSessionAndUser("raw-token"))?.session).toEqual({
        sessionToken: "raw-token",
        userId: "u-old",
        expires,
      })
      await migrate(pool, { schema: old })
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${old}" CASCADE`)
    }
  })

  it("migrate adds the passkey columns to an authenticators table created by an earlier version", async () => {
    const old = `gatehouse_old_${randomSuffix()}`
    try {
      await pool.query(`CREATE SCHEMA "${old}"`)
      await pool.query(`CREATE TABLE "${old}".users (id text PRIMARY KEY, name text, email text,
        email_verified timestamptz, image text, extra jsonb NOT NULL DEFAULT '{}')`)
      await pool.query(`CREATE TABLE "${old}".authenticators (credential_id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES "${old}".users (id) ON DELETE CASCADE, provider_account_id text NOT NULL,
        credential_public_key text NOT NULL, counter bigint NOT NULL, credential_device_type text NOT NULL,
        credential_backed_up boolean NOT NULL, transports text)`)
      await pool.query(`INSERT INTO "${old}".users (id, email) VALUES ('u-old', 'old@example.com')`)
      await pool.query(`INSERT INTO "${old}".authenticators VALUES ('Y3JlZA==', 'u-old', 'Y3JlZA==', 'cGs=', 4,
        'singleDevice', false, 'usb')`)
      await migrate(pool, { schema: old })
      const adapter = PostgresAdapter(pool, { schema: old })
      expect(await adapter.getAuthenticator("Y3JlZA==")).toEqual({
        userId: "u-old",
        providerAccountId: "Y3JlZA==",
        credentialID: "Y3JlZA==",
        credentialPublicKey: "cGs=",
        counter: 4,
        credentialDeviceType: "singleDevice",
        credentialBackedUp: false,
        transports: "usb",
      })
      expect((await adapter.updateAuthenticator("Y3JlZA==", { name: "Old key" }))?.name).toBe("Old key")
      expect((await adapter.updateAuthenticatorCounter("Y3JlZA==", 5, { expected: 4 }))?.lastUsedAt).toBeInstanceOf(
        Date,
      )
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${old}" CASCADE`)
    }
  })

  it("migrate creates a missing schema with its tables, foreign keys and indexes", async () => {
    const fresh = `gatehouse_fresh_${randomSuffix()}`
    try {
      await migrate(pool, { schema: fresh })
      const tables = await pool.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
        [fresh],
      )
      expect(tables.rows.map((r: { table_name: string }) => r.table_name)).toEqual([
        "accounts",
        "audit_events",
        "authenticators",
        "gatehouse_kv",
        "sessions",
        "two_factor",
        "users",
        "verification_tokens",
      ])
      const fks = await pool.query(
        `SELECT tc.table_name, rc.delete_rule FROM information_schema.table_constraints tc
           JOIN information_schema.referential_constraints rc ON rc.constraint_name = tc.constraint_name
             AND rc.constraint_schema = tc.table_schema
           WHERE tc.table_schema = $1 AND tc.constraint_type = 'FOREIGN KEY' ORDER BY tc.table_name`,
        [fresh],
      )
      expect(fks.rows).toEqual([
        { table_name: "accounts", delete_rule: "CASCADE" },
        { table_name: "authenticators", delete_rule: "CASCADE" },
        { table_name: "sessions", delete_rule: "CASCADE" },
      ])
      const indexes = await pool.query("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1", [fresh])
      const defs = Object.fromEntries(
        indexes.rows.map((r: { indexname: string; indexdef: string }) => [r.indexname, r.indexdef]),
      )
      expect(defs.users_email_lower).toMatch(/UNIQUE INDEX .* \(lower\(email\)\)/)
      expect(defs.sessions_user_id).toBeDefined()
      expect(defs.accounts_user_id).toBeDefined()
      expect(defs.accounts_pkey).toMatch(/\(provider, provider_account_id\)/)
      expect(defs.audit_events_user_at).toMatch(/\(user_id, at, id\)/)
      expect(defs.audit_events_at).toMatch(/\(at, id\)/)
      expect(defs.audit_events_type_at).toMatch(/\(type, at, id\)/)
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${fresh}" CASCADE`)
    }
  })

  it("stores dates as timestamptz", async () => {
    const adapter = PostgresAdapter(pool, { schema })
    await adapter.createUser({ id: "tz-user", email: "tz@example.com", emailVerified: null })
    await adapter.createSession({ sessionToken: "tz-session", userId: "tz-user", expires: new Date(1_700_000_000_123) })
    const { rows } = await pool.query(
      `SELECT pg_typeof(expires)::text AS type, expires FROM "${schema}".sessions WHERE session_token = 'tz-session'`,
    )
    expect(rows[0]).toEqual({ type: "timestamp with time zone", expires: new Date(1_700_000_000_123) })
  })

  it("getSessionAndUser is one query", async () => {
    const adapter = PostgresAdapter(pool, { schema })
    await adapter.createUser({ id: "one-query", email: "one@example.com", emailVerified: null })
    await adapter.createSession({ sessionToken: "one-query-token", userId: "one-query", expires: new Date() })
    const spy = jest.spyOn(pool, "query")
    try {
      await adapter.getSessionAndUser("one-query-token")
      expect(spy).toHaveBeenCalledTimes(1)
    } finally {
      spy.mockRestore()
    }
  })

  it("transaction() commits all writes together", async () => {
    const adapter = PostgresAdapter(pool, { schema })
    await adapter.transaction(async (tx) => {
      await tx.createUser({ id: "tx-ok", email: "tx-ok@example.com", emailVerified: null })
      await tx.linkAccount({ userId: "tx-ok", type: "oauth", provider: "github", providerAccountId: "tx-ok-1" })
    })
    expect((await adapter.getUserByAccount({ provider: "github", providerAccountId: "tx-ok-1" }))?.id).toBe("tx-ok")
  })

  it("transaction() rolls back the user when linking the account fails", async () => {
    const adapter = PostgresAdapter(pool, { schema })
    await adapter.createUser({ id: "tx-owner", email: "tx-owner@example.com", emailVerified: null })
    await adapter.linkAccount({ userId: "tx-owner", type: "oauth", provider: "github", providerAccountId: "taken" })
    await expect(
      adapter.transaction(async (tx) => {
        await tx.createUser({ id: "tx-half", email: "tx-half@example.com", emailVerified: null })
        await tx.linkAccount({ userId: "tx-half", type: "oauth", provider: "github", providerAccountId: "taken" })
      }),
    ).rejects.toMatchObject({ code: "adapter_conflict" })
    await expect(adapter.getUser("tx-half")).resolves.toBeNull()
    await expect(adapter.getUserByEmail("tx-half@example.com")).resolves.toBeNull()
  })

  it("a forgotten migrate: one sentence naming migrate and the schema, the SQLSTATE kept and logged", async () => {
    const missing = `gatehouse_unmigrated_${randomSuffix()}`
    const adapter = PostgresAdapter(pool, { schema: missing })
    const sentence = `Gatehouse's tables are missing or out of date in PostgreSQL schema "${missing}": run migrate(pool, { schema: "${missing}" }) once at start-up`
    await expect(adapter.getSessionAndUser("token")).rejects.toMatchObject({ message: sentence, code: "42P01" })
    await expect(PostgresStore(pool, { schema: missing }).get(["k"])).rejects.toMatchObject({ code: "42P01" })

    // Through the core: three log lines, the sentence and the SQLSTATE visible, no stack of library frames.
    const lines: string[] = []
    const write = jest.spyOn(process.stderr, "write").mockImplementation((chunk) => lines.push(String(chunk)) > 0)
    try {
      const wrapped = wrapAdapter(adapter, createLogger({}))
      await expect(wrapped.getUser!("u")).rejects.toMatchObject({ cause: { code: "42P01" } })
    } finally {
      write.mockRestore()
    }
    expect(lines).toEqual([
      "[gatehouse][error] AdapterError: An adapter call failed\n",
      `[gatehouse][cause]: Error: ${sentence}\n`,
      '[gatehouse][details]: {"method":"getUser","code":"42P01"}\n',
    ])
  })

  it("rejects a schema name that is not a plain identifier", () => {
    expect(() => PostgresAdapter(pool, { schema: 'x"; DROP TABLE users; --' })).toThrow(TypeError)
    expect(() => PostgresAdapter(pool, { schema: 'x"; DROP TABLE users; --' })).toThrow(
      "Invalid PostgreSQL schema name",
    )
  })
})

// The SQLite adapter passes the contract on a temporary file, and creates its schema in a new file.
import { mkdtempSync, rmSync, existsSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import { SQLiteAdapter, defaultSQLiteDriver } from "../../lib/storage/sqlite/adapter"
import SQLiteAdapterDefault from "../../lib/storage/sqlite/adapter"
import { runAdapterContract } from "./contract"
import { seedEverything, tokenIdentifiers } from "./deletion"

const dir = mkdtempSync(join(tmpdir(), "gatehouse-sqlite-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

runAdapterContract("sqlite", async () => {
  const db = new Database(join(dir, "contract.sqlite"))
  return { adapter: SQLiteAdapter(db), teardown: async () => void db.close() }
})

describe("SQLiteAdapter", () => {
  it("deleteUser (accounts.md §6.3) leaves 0 rows of the user in every table (direct SQL), another user's intact", async () => {
    const file = join(dir, "delete-user.sqlite")
    const adapter = SQLiteAdapter(file)
    await seedEverything(adapter, "u1", "Gone@Example.com")
    await seedEverything(adapter, "u2", "kept@example.com")
    const db = new Database(file)
    const count = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n
    const rowsOf = (id: string, email: string) => ({
      users: count("SELECT count(*) AS n FROM users WHERE id = ?", id),
      accounts: count("SELECT count(*) AS n FROM accounts WHERE user_id = ?", id),
      passwords: count("SELECT count(*) AS n FROM accounts WHERE user_id = ? AND provider = 'password'", id),
      sessions: count("SELECT count(*) AS n FROM sessions WHERE user_id = ?", id),
      impersonation: count("SELECT count(*) AS n FROM sessions WHERE user_id = ? AND impersonated_by IS NOT NULL", id),
      authenticators: count("SELECT count(*) AS n FROM authenticators WHERE user_id = ?", id),
      twoFactor: count("SELECT count(*) AS n FROM two_factor WHERE user_id = ?", id),
      tokens: tokenIdentifiers(email).reduce(
        (n, identifier) => n + count("SELECT count(*) AS n FROM verification_tokens WHERE identifier = ?", identifier),
        0,
      ),
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
    expect(rowsOf("u1", "Gone@Example.com")).toEqual(full)
    await adapter.deleteUser("u1")
    expect(rowsOf("u1", "Gone@Example.com")).toEqual(Object.fromEntries(Object.keys(full).map((k) => [k, 0])))
    expect(rowsOf("u2", "kept@example.com")).toEqual(full)
    db.close()
  })

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
      "audit_events",
      "authenticators",
      "gatehouse_kv",
      "sessions",
      "two_factor",
      "users",
      "verification_tokens",
    ])
    expect(check.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" })
    expect(check.prepare("SELECT id, email, email_key FROM users").all()).toEqual([
      { id: "u1", email: "first@example.com", email_key: "first@example.com" },
    ])
    check.close()
  })

  it("a file path in a folder that does not exist: the folder is created, for this user only", async () => {
    const folder = join(dir, "missing", "nested")
    const adapter = SQLiteAdapter(join(folder, "auth.sqlite"))
    await adapter.createUser({ id: "u1", email: "nested@example.com", emailVerified: null })
    expect(existsSync(join(folder, "auth.sqlite"))).toBe(true)
    expect(statSync(folder).mode & 0o777).toBe(0o700)
    await expect(adapter.getUserByEmail("NESTED@example.com")).resolves.toMatchObject({ id: "u1" })
  })

  it("opens the file with the driver named in options, and only that one", () => {
    expect(defaultSQLiteDriver()).toBe("better-sqlite3")
    // Node 20 has no node:sqlite: naming it fails to load instead of falling back to another driver.
    expect(() => SQLiteAdapter(join(dir, "named.sqlite"), { driver: "node:sqlite" })).toThrow(/node:sqlite/)
  })

  it("adds the session-management columns to a sessions table created by an earlier version", async () => {
    const db = new Database(join(dir, "old-sessions.sqlite"))
    const expires = Date.now() + 3_600_000
    db.exec(`CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT, email TEXT, email_key TEXT UNIQUE,
      email_verified INTEGER, image TEXT, extra TEXT NOT NULL DEFAULT '{}');
      CREATE TABLE sessions (session_token TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id),
      expires INTEGER NOT NULL);
      INSERT INTO users (id, email) VALUES ('u-old', 'old@example.com');
      INSERT INTO sessions VALUES ('raw-token', 'u-old', ${expires});`)
    const adapter = SQLiteAdapter(db)
    const columns = db.prepare("PRAGMA table_info(sessions)").all() as Array<{ name: string }>
    expect(columns.map((c) => c.name)).toEqual(
      expect.arrayContaining(["created_at", "last_active_at", "user_agent", "ip"]),
    )
    expect((await adapter.getSessionAndUser("raw-token"))?.session).toEqual({
      sessionToken: "raw-token",
      userId: "u-old",
      expires: new Date(expires),
    })
    const now = new Date()
    await adapter.updateSession({ sessionToken: "raw-token", lastActiveAt: now })
    expect(await adapter.listSessionsByUserId("u-old")).toEqual([
      { sessionToken: "raw-token", userId: "u-old", expires: new Date(expires), lastActiveAt: now },
    ])
    db.close()
  })

  it("adds the OIDC logout columns and indexes to a sessions table created by an earlier version", async () => {
    const db = new Database(join(dir, "old-idp.sqlite"))
    const expires = Date.now() + 3_600_000
    db.exec(`CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT, email TEXT, email_key TEXT UNIQUE,
      email_verified INTEGER, image TEXT, extra TEXT NOT NULL DEFAULT '{}');
      CREATE TABLE sessions (session_token TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id),
      expires INTEGER NOT NULL, created_at INTEGER, last_active_at INTEGER, user_agent TEXT, ip TEXT);
      INSERT INTO users (id, email) VALUES ('u-old', 'old@example.com');
      INSERT INTO sessions (session_token, user_id, expires) VALUES ('raw-token', 'u-old', ${expires});`)
    const adapter = SQLiteAdapter(db)
    const columns = db.prepare("PRAGMA table_info(sessions)").all() as Array<{ name: string; type: string }>
    expect(columns.filter((c) => ["provider", "idp_sid", "idp_sub", "auth_time"].includes(c.name))).toEqual([
      expect.objectContaining({ name: "provider", type: "TEXT" }),
      expect.objectContaining({ name: "idp_sid", type: "TEXT" }),
      expect.objectContaining({ name: "idp_sub", type: "TEXT" }),
      expect.objectContaining({ name: "auth_time", type: "INTEGER" }),
    ])
    const indexes = db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sessions'")
      .all()
    expect(indexes).toEqual(
      expect.arrayContaining([
        { name: "sessions_idp_sid", sql: expect.stringContaining("(provider, idp_sid)") },
        { name: "sessions_idp_sub", sql: expect.stringContaining("(provider, idp_sub)") },
      ]),
    )
    const fresh = {
      sessionToken: "new-token",
      userId: "u-old",
      expires: new Date(expires),
      provider: "corp",
      idpSid: "sid-1",
      idpSub: "old@corp",
      authTime: 1_900_000_000,
    }
    await adapter.createSession(fresh)
    await expect(adapter.deleteSessionsByIdp({ provider: "corp", idpSub: "old@corp" })).resolves.toEqual([fresh])
    expect((await adapter.getSessionAndUser("raw-token"))?.session).toEqual({
      sessionToken: "raw-token",
      userId: "u-old",
      expires: new Date(expires),
    })
    SQLiteAdapter(db)
    expect(db.prepare("PRAGMA table_info(sessions)").all()).toHaveLength(columns.length)
    db.close()
  })

  it("adds the passkey columns to an authenticators table created by an earlier version", async () => {
    const db = new Database(join(dir, "old-authenticators.sqlite"))
    db.exec(`CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT, email TEXT, email_key TEXT UNIQUE,
      email_verified INTEGER, image TEXT, extra TEXT NOT NULL DEFAULT '{}');
      CREATE TABLE authenticators (credential_id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id),
      provider_account_id TEXT NOT NULL, credential_public_key TEXT NOT NULL, counter INTEGER NOT NULL,
      credential_device_type TEXT NOT NULL, credential_backed_up INTEGER NOT NULL, transports TEXT);
      INSERT INTO users (id, email) VALUES ('u-old', 'old@example.com');
      INSERT INTO authenticators VALUES ('Y3JlZA==', 'u-old', 'Y3JlZA==', 'cGs=', 4, 'singleDevice', 0, 'usb');`)
    const adapter = SQLiteAdapter(db)
    const columns = db.prepare("PRAGMA table_info(authenticators)").all() as Array<{ name: string }>
    expect(columns.map((c) => c.name)).toEqual(expect.arrayContaining(["name", "aaguid", "created_at", "last_used_at"]))
    expect((await adapter.getAuthenticator("Y3JlZA=="))?.counter).toBe(4)
    expect((await adapter.updateAuthenticator("Y3JlZA==", { name: "Old key" }))?.name).toBe("Old key")
    SQLiteAdapter(db)
    expect(db.prepare("PRAGMA table_info(authenticators)").all()).toHaveLength(columns.length)
    db.close()
  })

  it("adds dpop_key to an accounts table created by an earlier version, twice without error", async () => {
    const db = new Database(join(dir, "old-accounts.sqlite"))
    db.exec(`CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT, email TEXT, email_key TEXT UNIQUE,
      email_verified INTEGER, image TEXT, extra TEXT NOT NULL DEFAULT '{}');
      CREATE TABLE accounts (user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, type TEXT NOT NULL,
      provider TEXT NOT NULL, provider_account_id TEXT NOT NULL, access_token TEXT, refresh_token TEXT,
      expires_at INTEGER, token_type TEXT, scope TEXT, id_token TEXT, session_state TEXT,
      extra TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (provider, provider_account_id));
      INSERT INTO users (id, email) VALUES ('u-old', 'old@example.com');
      INSERT INTO accounts (user_id, type, provider, provider_account_id, access_token)
        VALUES ('u-old', 'oidc', 'bank', 'acct-1', 'at-old');`)
    const adapter = SQLiteAdapter(db)
    SQLiteAdapter(db)
    const columns = db.prepare("PRAGMA table_info(accounts)").all() as Array<{ name: string }>
    expect(columns.filter((c) => c.name === "dpop_key")).toHaveLength(1)
    expect(await adapter.getAccount("acct-1", "bank")).toMatchObject({ access_token: "at-old" })
    const updated = await adapter.updateAccountTokens(
      { provider: "bank", providerAccountId: "acct-1" },
      { dpop_key: "gh1.k" },
    )
    expect(updated).toMatchObject({ access_token: "at-old", dpop_key: "gh1.k" })
    db.close()
  })

  it("adds the administration columns to a users table of an earlier version; values kept in extra still read", async () => {
    const file = join(dir, "admin-columns.sqlite")
    const old = new Database(file)
    old.exec(`CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT, email TEXT, email_key TEXT UNIQUE,
      email_verified INTEGER, image TEXT, extra TEXT NOT NULL DEFAULT '{}')`)
    const insert = old.prepare("INSERT INTO users (id, email, email_key, extra) VALUES (?, ?, ?, ?)")
    insert.run("u-admin", "admin@example.com", "admin@example.com", JSON.stringify({ role: "admin" }))
    const legacyBan = { banned: true, banReason: "spam", banExpires: "2031-01-02T03:04:05.678Z", nickname: "x" }
    insert.run("u-banned", "banned@example.com", "banned@example.com", JSON.stringify(legacyBan))
    insert.run("u-plain", "plain@example.com", "plain@example.com", "{}")
    old.close()

    const adapter = SQLiteAdapter(file)
    SQLiteAdapter(file) // a second open adds nothing twice
    const db = new Database(file)
    const columns = db.prepare("PRAGMA table_info(users)").all() as Array<{ name: string }>
    expect(columns.map((c) => c.name)).toEqual(expect.arrayContaining(["role", "banned", "ban_reason", "ban_expires"]))
    const indexes = db.prepare("PRAGMA index_list(users)").all() as Array<{ name: string }>
    expect(indexes.map((i) => i.name)).toContain("users_email_key_id")

    expect(await adapter.getUser("u-admin")).toMatchObject({ role: "admin", banned: false, banReason: null })
    const banned = await adapter.getUser("u-banned")
    expect(banned).toMatchObject({ role: null, banned: true, banReason: "spam", nickname: "x" })
    expect(banned?.banExpires?.toISOString()).toBe("2031-01-02T03:04:05.678Z")
    expect(await adapter.getUser("u-plain")).toMatchObject({ role: null, banned: false, banExpires: null })
    const listed = await adapter.listUsers({ limit: 10 })
    expect(listed.map((u) => [u.id, u.role, u.banned])).toEqual([
      ["u-admin", "admin", false],
      ["u-banned", null, true],
      ["u-plain", null, false],
    ])

    // A write moves the field to its column and out of extra; other extra fields stay.
    await adapter.updateUser({ id: "u-banned", banned: false, banReason: null, banExpires: null })
    await adapter.updateUser({ id: "u-admin", role: "editor" })
    await adapter.createUser({
      id: "u-new",
      email: "new@example.com",
      emailVerified: null,
      role: "admin",
      banned: true,
    })
    const row = (id: string) =>
      db.prepare("SELECT role, banned, ban_reason, ban_expires, extra FROM users WHERE id = ?").get(id)
    expect(row("u-banned")).toEqual({
      role: null,
      banned: 0,
      ban_reason: null,
      ban_expires: null,
      extra: '{"nickname":"x"}',
    })
    expect(row("u-admin")).toEqual({ role: "editor", banned: 0, ban_reason: null, ban_expires: null, extra: "{}" })
    expect(row("u-new")).toEqual({ role: "admin", banned: 1, ban_reason: null, ban_expires: null, extra: "{}" })
    expect(await adapter.getUser("u-banned")).toMatchObject({ banned: false, banReason: null, banExpires: null })
    expect(await adapter.getUser("u-admin")).toMatchObject({ role: "editor" })
    await adapter.updateUser({ id: "u-new", banExpires: new Date(1_900_000_000_000), banReason: "r" })
    expect(row("u-new")).toMatchObject({ banned: 1, ban_reason: "r", ban_expires: 1_900_000_000_000 })
    db.close()
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
    expect(() =>
      db.prepare("INSERT INTO sessions (session_token, user_id, expires) VALUES ('t', 'no-such-user', 0)").run(),
    ).toThrow(/FOREIGN KEY/)
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

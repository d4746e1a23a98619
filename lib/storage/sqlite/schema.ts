// The SQLite tables of the adapter and the slice of the drivers' API it uses.

/** A prepared statement, as better-sqlite3, `node:sqlite` and `bun:sqlite` return it (only what the adapter calls). */
export interface SQLiteStatement {
  run(...params: unknown[]): { changes: number | bigint }
  get(...params: unknown[]): unknown
  all(...params: unknown[]): unknown[]
}

/**
 * The part of a SQLite database the adapter needs. better-sqlite3's `Database`, `node:sqlite`'s `DatabaseSync` and
 * `bun:sqlite`'s `Database` fit it.
 */
export interface SQLiteDatabase {
  prepare(sql: string): SQLiteStatement
  exec(sql: string): unknown
}

/**
 * Tables, created on first use. Dates are epoch milliseconds; `email_key` holds the lower-cased email (SQLite's own
 * `lower()` folds only ASCII), unique so two users never share an email in any case.
 */
export const SQLITE_SCHEMA = `
CREATE TABLE IF NOT EXISTS users (
  id             TEXT PRIMARY KEY,
  name           TEXT,
  email          TEXT,
  email_key      TEXT UNIQUE,
  email_verified INTEGER,
  image          TEXT,
  extra          TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS accounts (
  user_id             TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  type                TEXT NOT NULL,
  provider            TEXT NOT NULL,
  provider_account_id TEXT NOT NULL,
  access_token        TEXT,
  refresh_token       TEXT,
  expires_at          INTEGER,
  token_type          TEXT,
  scope               TEXT,
  id_token            TEXT,
  session_state       TEXT,
  extra               TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (provider, provider_account_id)
);
CREATE INDEX IF NOT EXISTS accounts_user_id ON accounts (user_id);
CREATE TABLE IF NOT EXISTS sessions (
  session_token TEXT PRIMARY KEY,
  user_id       TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires       INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_user_id ON sessions (user_id);
CREATE TABLE IF NOT EXISTS verification_tokens (
  identifier TEXT NOT NULL,
  token      TEXT NOT NULL,
  expires    INTEGER NOT NULL,
  PRIMARY KEY (identifier, token)
);
CREATE TABLE IF NOT EXISTS authenticators (
  credential_id          TEXT PRIMARY KEY,
  user_id                TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  provider_account_id    TEXT NOT NULL,
  credential_public_key  TEXT NOT NULL,
  counter                INTEGER NOT NULL,
  credential_device_type TEXT NOT NULL,
  credential_backed_up   INTEGER NOT NULL,
  transports             TEXT,
  name                   TEXT,
  aaguid                 TEXT,
  created_at             INTEGER,
  last_used_at           INTEGER
);
CREATE INDEX IF NOT EXISTS authenticators_user_id ON authenticators (user_id);
CREATE TABLE IF NOT EXISTS two_factor (
  user_id        TEXT PRIMARY KEY,
  secret         TEXT NOT NULL,
  verified_at    INTEGER,
  last_used_step INTEGER NOT NULL DEFAULT 0,
  backup_codes   TEXT NOT NULL DEFAULT '[]',
  version        INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_events (
  id         TEXT PRIMARY KEY,
  type       TEXT NOT NULL,
  at         INTEGER NOT NULL,
  user_id    TEXT,
  actor_id   TEXT,
  ip         TEXT,
  user_agent TEXT,
  provider   TEXT,
  outcome    TEXT NOT NULL CHECK (outcome IN ('success','failure')),
  reason     TEXT,
  details    TEXT
);
CREATE INDEX IF NOT EXISTS audit_events_user_at ON audit_events (user_id, at, id);
CREATE INDEX IF NOT EXISTS audit_events_at ON audit_events (at, id);
CREATE INDEX IF NOT EXISTS audit_events_type_at ON audit_events (type, at, id);
`

/** Columns added after the first release, per table: a database created earlier gets them on open. */
const ADDED_COLUMNS: Record<string, Array<[column: string, type: string]>> = {
  // Administration: the role, and a ban with its reason and end (epoch ms, null = permanent).
  users: [
    ["role", "TEXT"],
    ["banned", "INTEGER NOT NULL DEFAULT 0"],
    ["ban_reason", "TEXT"],
    ["ban_expires", "INTEGER"],
  ],
  // The sealed DPoP key; the Password provider's hash and when a user action last set it (epoch ms).
  accounts: [
    ["dpop_key", "TEXT"],
    ["password_hash", "TEXT"],
    ["password_changed_at", "INTEGER"],
  ],
  sessions: [
    ["created_at", "INTEGER"],
    ["last_active_at", "INTEGER"],
    ["user_agent", "TEXT"],
    ["ip", "TEXT"],
    ["provider", "TEXT"],
    ["idp_sid", "TEXT"],
    ["idp_sub", "TEXT"],
    ["auth_time", "INTEGER"],
    // An impersonation session: the admin who started it (accounts.md §3.5).
    ["impersonated_by", "TEXT"],
  ],
  authenticators: [
    ["name", "TEXT"],
    ["aaguid", "TEXT"],
    ["created_at", "INTEGER"],
    ["last_used_at", "INTEGER"],
  ],
}

/** Adds the columns of {@link ADDED_COLUMNS} that an existing database lacks (SQLite has no `ADD COLUMN IF NOT EXISTS`). */
export function addMissingColumns(db: SQLiteDatabase): void {
  for (const [table, columns] of Object.entries(ADDED_COLUMNS)) {
    const present = new Set(
      db
        .prepare(`PRAGMA table_info(${table})`)
        .all()
        .map((row) => (row as { name: string }).name),
    )
    for (const [column, type] of columns) {
      if (!present.has(column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`)
    }
  }
  // Back-channel logout finds sessions by the OP's session id or subject, per provider.
  db.exec("CREATE INDEX IF NOT EXISTS sessions_idp_sid ON sessions (provider, idp_sid)")
  db.exec("CREATE INDEX IF NOT EXISTS sessions_idp_sub ON sessions (provider, idp_sub)")
  // The user listing's order and keyset cursor (lower-cased email, then id).
  db.exec("CREATE INDEX IF NOT EXISTS users_email_key_id ON users (email_key, id)")
}

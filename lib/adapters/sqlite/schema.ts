// The SQLite tables of the adapter and the slice of the better-sqlite3 API it uses.

/** A prepared statement, as better-sqlite3 returns it (only what the adapter calls). */
export interface SQLiteStatement {
  run(...params: unknown[]): { changes: number | bigint }
  get(...params: unknown[]): unknown
  all(...params: unknown[]): unknown[]
}

/**
 * The part of a better-sqlite3 `Database` the adapter needs. A `new Database(file)` from `better-sqlite3` fits it.
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
  transports             TEXT
);
CREATE INDEX IF NOT EXISTS authenticators_user_id ON authenticators (user_id);
`

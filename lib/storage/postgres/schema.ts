// The PostgreSQL schema as a string (the same text as schema.sql, which a test keeps in sync) and migrate().
import type { Pool, PoolClient } from "pg"

/** The text of `gatehouse-auth/adapters/postgres/schema.sql`. */
export const POSTGRES_SCHEMA = `-- Gatehouse PostgreSQL schema. Table names are unqualified: run it with the search_path set to the target schema
-- (migrate() does that). Safe to run more than once.
CREATE TABLE IF NOT EXISTS users (
  id             text PRIMARY KEY,
  name           text,
  email          text,
  email_verified timestamptz,
  image          text,
  extra          jsonb NOT NULL DEFAULT '{}'
);
-- Emails are stored as given and matched case-insensitively; one user per email in any case.
CREATE UNIQUE INDEX IF NOT EXISTS users_email_lower ON users (lower(email));
-- Added for administration: the role, and a ban with its reason and end (null = permanent).
ALTER TABLE users ADD COLUMN IF NOT EXISTS role text;
ALTER TABLE users ADD COLUMN IF NOT EXISTS banned boolean NOT NULL DEFAULT false;
ALTER TABLE users ADD COLUMN IF NOT EXISTS ban_reason text;
ALTER TABLE users ADD COLUMN IF NOT EXISTS ban_expires timestamptz;
-- The user listing's order and keyset cursor: lower-cased email, then id, compared bytewise.
CREATE INDEX IF NOT EXISTS users_email_key_id ON users ((lower(email)) COLLATE "C", id COLLATE "C");

CREATE TABLE IF NOT EXISTS accounts (
  user_id             text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type                text NOT NULL,
  provider            text NOT NULL,
  provider_account_id text NOT NULL,
  access_token        text,
  refresh_token       text,
  expires_at          bigint,
  token_type          text,
  scope               text,
  id_token            text,
  session_state       text,
  extra               jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (provider, provider_account_id)
);
CREATE INDEX IF NOT EXISTS accounts_user_id ON accounts (user_id);
-- Added for DPoP: the sealed private key (gh1.) the account's tokens are bound to.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS dpop_key text;
-- Added for the Password provider: the PHC hash string, and when a user action last set it.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS password_hash text;
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS password_changed_at timestamptz;

CREATE TABLE IF NOT EXISTS sessions (
  session_token text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  expires       timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_user_id ON sessions (user_id);
-- Added for session management; ADD COLUMN IF NOT EXISTS also upgrades a database created by an earlier version.
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS created_at timestamptz;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS last_active_at timestamptz;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS user_agent text;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS ip text;
-- Added for OpenID Connect logout: the provider, the OP's session id and subject, the ID token's iat (seconds).
-- Back-channel logout deletes sessions by (provider, idp_sid) or (provider, idp_sub).
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS provider text;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS idp_sid text;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS idp_sub text;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS auth_time bigint;
-- Added for impersonation: the admin who started the session (accounts.md §3.5).
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS impersonated_by text;
CREATE INDEX IF NOT EXISTS sessions_idp_sid ON sessions (provider, idp_sid);
CREATE INDEX IF NOT EXISTS sessions_idp_sub ON sessions (provider, idp_sub);

CREATE TABLE IF NOT EXISTS verification_tokens (
  identifier text NOT NULL,
  token      text NOT NULL,
  expires    timestamptz NOT NULL,
  PRIMARY KEY (identifier, token)
);

CREATE TABLE IF NOT EXISTS authenticators (
  credential_id          text PRIMARY KEY,
  user_id                text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider_account_id    text NOT NULL,
  credential_public_key  text NOT NULL,
  counter                bigint NOT NULL,
  credential_device_type text NOT NULL,
  credential_backed_up   boolean NOT NULL,
  transports             text
);
CREATE INDEX IF NOT EXISTS authenticators_user_id ON authenticators (user_id);
-- Added for passkey management; ADD COLUMN IF NOT EXISTS also upgrades a database created by an earlier version.
ALTER TABLE authenticators ADD COLUMN IF NOT EXISTS name text;
ALTER TABLE authenticators ADD COLUMN IF NOT EXISTS aaguid text;
ALTER TABLE authenticators ADD COLUMN IF NOT EXISTS created_at timestamptz;
ALTER TABLE authenticators ADD COLUMN IF NOT EXISTS last_used_at timestamptz;

-- Two-factor sign-in: one row per user (no foreign key: credentials users may live only in the app's own tables).
CREATE TABLE IF NOT EXISTS two_factor (
  user_id        text PRIMARY KEY,
  secret         text NOT NULL,
  verified_at    timestamptz,
  last_used_step bigint NOT NULL DEFAULT 0,
  backup_codes   jsonb NOT NULL DEFAULT '[]',
  version        integer NOT NULL DEFAULT 0,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);

-- The key-value store (revocation, replay guards, rate limits); expires_at is epoch milliseconds.
CREATE TABLE IF NOT EXISTS gatehouse_kv (
  key        text PRIMARY KEY,
  value      text NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS gatehouse_kv_expires_at ON gatehouse_kv (expires_at);

-- Added for the audit trail: one row per security-relevant act. No foreign key: events outlive the user.
CREATE TABLE IF NOT EXISTS audit_events (
  id         text PRIMARY KEY,
  type       text NOT NULL,
  at         timestamptz NOT NULL,
  user_id    text,
  actor_id   text,
  ip         text,
  user_agent text,
  provider   text,
  outcome    text NOT NULL CHECK (outcome IN ('success', 'failure')),
  reason     text,
  details    jsonb
);
CREATE INDEX IF NOT EXISTS audit_events_user_at ON audit_events (user_id, at, id);
CREATE INDEX IF NOT EXISTS audit_events_at ON audit_events (at, id);
CREATE INDEX IF NOT EXISTS audit_events_type_at ON audit_events (type, at, id);
`

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** The PostgreSQL schema that holds the tables; created if missing. Default `public`. */
  schema?: string
}

/**
 * What a {@link migrate} run added, each list in the order of `schema.sql`; all empty when the schema was current.
 */
export interface MigrateReport {
  /** The tables it created. */
  tables: string[]
  /** The columns it added to tables that already existed, as `table.column` (a new table's come with it). */
  columns: string[]
  /** The named indexes it created. */
  indexes: string[]
}

/** What the schema text declares, in its order: tables, added columns (`table.column`) and named indexes. */
const DECLARED = {
  tables: [...POSTGRES_SCHEMA.matchAll(/^CREATE TABLE IF NOT EXISTS (\w+)/gm)].map((m) => m[1]!),
  columns: [...POSTGRES_SCHEMA.matchAll(/^ALTER TABLE (\w+) ADD COLUMN IF NOT EXISTS (\w+)/gm)].map(
    (m) => `${m[1]!}.${m[2]!}`,
  ),
  indexes: [...POSTGRES_SCHEMA.matchAll(/^CREATE (?:UNIQUE )?INDEX IF NOT EXISTS (\w+)/gm)].map((m) => m[1]!),
}

/** A PostgreSQL schema name the adapter accepts: a plain identifier, so it can be quoted without escaping. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/

/** Checks a schema name and returns it double-quoted for SQL. A bad name is the caller's mistake: a TypeError. */
export function quoteSchema(schema: string): string {
  if (!IDENTIFIER.test(schema)) {
    throw Object.assign(new TypeError("Invalid PostgreSQL schema name"), { code: "ERR_INVALID_ARG_VALUE" })
  }
  return `"${schema}"`
}

/** The tables, columns (`table.column`) and indexes of `schema` now. */
async function existing(
  client: PoolClient,
  schema: string,
): Promise<{ tables: Set<string>; columns: Set<string>; indexes: Set<string> }> {
  // One after another: a client runs one query at a time.
  const tables = await client.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1",
    [schema],
  )
  const columns = await client.query<{ name: string }>(
    "SELECT table_name || '.' || column_name AS name FROM information_schema.columns WHERE table_schema = $1",
    [schema],
  )
  const indexes = await client.query<{ name: string }>(
    "SELECT indexname AS name FROM pg_indexes WHERE schemaname = $1",
    [schema],
  )
  const names = (result: { rows: Array<{ name: string }> }) => new Set(result.rows.map((row) => row.name))
  return { tables: names(tables), columns: names(columns), indexes: names(indexes) }
}

/**
 * Creates the adapter's tables, columns and indexes in `schema` (default `public`) if they are missing, and resolves
 * to what it added (empty lists when the schema was current). Idempotent; runs in one transaction under an advisory
 * lock, so concurrent starts do not race (the second reports nothing).
 *
 * @example
 * ```ts
 * import { Pool } from "pg"
 * import { PostgresAdapter, migrate } from "gatehouse-auth/adapters/postgres"
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL })
 * const added = await migrate(pool, { schema: "auth" }) // { tables: [...], columns: ["users.role"], indexes: [...] }
 * const adapter = PostgresAdapter(pool, { schema: "auth" })
 * ```
 */
export async function migrate(pool: Pool, options: MigrateOptions = {}): Promise<MigrateReport> {
  const name = options.schema ?? "public"
  const schema = quoteSchema(name)
  const client = await pool.connect()
  let broken: Error | undefined
  const onError = (error: Error): void => {
    broken = error
  }
  client.on("error", onError)
  try {
    await client.query("BEGIN")
    await client.query("SELECT pg_advisory_xact_lock(hashtext('gatehouse:migrate'))")
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
    await client.query(`SET LOCAL search_path TO ${schema}`)
    // What exists before, under the lock: after the schema text ran, everything it declares exists.
    const before = await existing(client, name)
    await client.query(POSTGRES_SCHEMA)
    await client.query("COMMIT")
    return {
      tables: DECLARED.tables.filter((table) => !before.tables.has(table)),
      columns: DECLARED.columns.filter(
        (column) => before.tables.has(column.split(".")[0]!) && !before.columns.has(column),
      ),
      indexes: DECLARED.indexes.filter((index) => !before.indexes.has(index)),
    }
  } catch (error) {
    await client.query("ROLLBACK").catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error("Rollback failed")
    })
    throw error
  } finally {
    client.off("error", onError)
    client.release(broken)
  }
}

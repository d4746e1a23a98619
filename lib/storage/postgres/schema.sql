-- Gatehouse PostgreSQL schema. Table names are unqualified: run it with the search_path set to the target schema
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

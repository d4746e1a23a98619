// The SQL rows shared by the SQLite and PostgreSQL adapters, as the drivers return them (snake_case).
import type { AdapterAccount } from "../adapter"

/** A row of `users`. Dates arrive as Date (PostgreSQL) or epoch milliseconds (SQLite). */
export interface UserRow {
  id: string
  name: string | null
  email: string | null
  email_verified: unknown
  image: string | null
  extra: unknown
  /** The administration columns; absent from a database not upgraded yet. */
  role?: string | null
  banned?: unknown
  ban_reason?: string | null
  ban_expires?: unknown
}

/** A row of `accounts`. */
export interface AccountRow {
  user_id: string
  type: AdapterAccount["type"]
  provider: string
  provider_account_id: string
  access_token: string | null
  refresh_token: string | null
  expires_at: unknown
  token_type: string | null
  scope: string | null
  id_token: string | null
  session_state: string | null
  /** Absent from a database that `migrate()` has not upgraded yet. */
  dpop_key?: string | null
  extra: unknown
}

/** A row of `sessions`. */
export interface SessionRow {
  session_token: string
  user_id: string
  expires: unknown
  created_at?: unknown
  last_active_at?: unknown
  user_agent?: string | null
  ip?: string | null
  provider?: string | null
  idp_sid?: string | null
  idp_sub?: string | null
  auth_time?: unknown
  impersonated_by?: string | null
}

/** A row of `verification_tokens`. */
export interface TokenRow {
  identifier: string
  token: string
  expires: unknown
}

/** A row of `authenticators`. */
export interface AuthenticatorRow {
  credential_id: string
  user_id: string
  provider_account_id: string
  credential_public_key: string
  counter: unknown
  credential_device_type: string
  credential_backed_up: unknown
  transports: string | null
  name?: string | null
  aaguid?: string | null
  created_at?: unknown
  last_used_at?: unknown
}

// Mapping between the SQL rows shared by the SQLite and PostgreSQL adapters (snake_case) and the contract's models.
import type { AdapterAccount, AdapterAuthenticator, AdapterSession, AdapterUser, VerificationToken } from "../adapter"
import {
  ACCOUNT_FIELDS,
  USER_FIELDS,
  emailKey,
  parseExtra,
  splitExtra,
  toDate,
  toDateOrNull,
  toNumber,
  withoutNullish,
} from "./models"

export type { AccountRow, AuthenticatorRow, SessionRow, TokenRow, UserRow } from "./row-types"
import type { AccountRow, AuthenticatorRow, SessionRow, TokenRow, UserRow } from "./row-types"

/** The administration fields of a user, which have their own columns (before, they were kept in `extra`). */
export const ADMIN_USER_FIELDS = ["role", "banned", "banReason", "banExpires"] as const

/** The user fields with a column, administration fields included. */
const USER_COLUMN_FIELDS = [...USER_FIELDS, ...ADMIN_USER_FIELDS] as const

/**
 * The administration fields of a row: its columns, unless the `extra` bag still holds a value written before the
 * columns existed (a write of the field moves it to its column and out of the bag, so a value in the bag is the
 * latest one). A database without the columns answers only what the bag holds.
 */
function adminFieldsOf(row: UserRow, extra: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> =
    row.banned === undefined
      ? {}
      : {
          role: row.role ?? null,
          banned: row.banned === true || row.banned === 1 || row.banned === "1",
          banReason: row.ban_reason ?? null,
          banExpires: toDateOrNull(row.ban_expires),
        }
  for (const field of ADMIN_USER_FIELDS) {
    if (field in extra) fields[field] = field === "banExpires" ? toDateOrNull(extra[field]) : extra[field]
  }
  return fields
}

/** Builds a user from its row; fields without a column come back from the `extra` bag. */
export function userFromRow(row: UserRow): AdapterUser {
  const extra = parseExtra(row.extra)
  return {
    ...extra,
    ...adminFieldsOf(row, extra),
    id: row.id,
    name: row.name,
    email: row.email as string,
    emailVerified: toDateOrNull(row.email_verified),
    image: row.image,
  }
}

/** Builds an account from its row; absent token fields are omitted rather than `null`. */
export function accountFromRow(row: AccountRow): AdapterAccount {
  const tokens: Record<string, unknown> = withoutNullish<Record<string, unknown>>({
    access_token: row.access_token,
    refresh_token: row.refresh_token,
    expires_at: row.expires_at === null || row.expires_at === undefined ? null : toNumber(row.expires_at),
    token_type: row.token_type,
    scope: row.scope,
    id_token: row.id_token,
    session_state: row.session_state,
    dpop_key: row.dpop_key,
  })
  return {
    ...parseExtra(row.extra),
    ...tokens,
    userId: row.user_id,
    type: row.type,
    provider: row.provider,
    providerAccountId: row.provider_account_id,
  }
}

/** Builds a session from its row. */
export function sessionFromRow(row: SessionRow): AdapterSession {
  const session: AdapterSession = { sessionToken: row.session_token, userId: row.user_id, expires: toDate(row.expires) }
  // Management columns are omitted when empty, so a session keeps the Auth.js shape until they are used.
  const createdAt = toDateOrNull(row.created_at)
  const lastActiveAt = toDateOrNull(row.last_active_at)
  if (createdAt) session.createdAt = createdAt
  if (lastActiveAt) session.lastActiveAt = lastActiveAt
  if (typeof row.user_agent === "string") session.userAgent = row.user_agent
  if (typeof row.ip === "string") session.ip = row.ip
  if (typeof row.provider === "string") session.provider = row.provider
  if (typeof row.idp_sid === "string") session.idpSid = row.idp_sid
  if (typeof row.idp_sub === "string") session.idpSub = row.idp_sub
  if (row.auth_time !== undefined && row.auth_time !== null) session.authTime = Number(row.auth_time)
  if (typeof row.impersonated_by === "string") session.impersonatedBy = row.impersonated_by
  return session
}

/** The management column values of a new session: created_at, last_active_at, user_agent, ip. */
export function sessionExtras(session: AdapterSession): [Date | null, Date | null, string | null, string | null] {
  return [
    session.createdAt ? new Date(session.createdAt) : null,
    session.lastActiveAt ? new Date(session.lastActiveAt) : null,
    typeof session.userAgent === "string" ? session.userAgent.slice(0, 256) : null,
    typeof session.ip === "string" ? session.ip : null,
  ]
}

/** The OIDC logout column values of a new session: provider, idp_sid, idp_sub, auth_time (all null without one). */
export function sessionIdp(session: AdapterSession): [string | null, string | null, string | null, number | null] {
  if (typeof session.provider !== "string") return [null, null, null, null]
  return [
    session.provider,
    typeof session.idpSid === "string" ? session.idpSid : null,
    typeof session.idpSub === "string" ? session.idpSub : null,
    typeof session.authTime === "number" && Number.isFinite(session.authTime) ? Math.floor(session.authTime) : null,
  ]
}

/** Builds a verification token from its row. */
export function tokenFromRow(row: TokenRow): VerificationToken {
  return { identifier: row.identifier, token: row.token, expires: toDate(row.expires) }
}

/** Builds an authenticator from its row. */
export function authenticatorFromRow(row: AuthenticatorRow): AdapterAuthenticator {
  return {
    userId: row.user_id,
    providerAccountId: row.provider_account_id,
    counter: toNumber(row.counter),
    credentialBackedUp: row.credential_backed_up === true || row.credential_backed_up === 1,
    credentialID: row.credential_id,
    credentialPublicKey: row.credential_public_key,
    transports: row.transports ?? null,
    credentialDeviceType: row.credential_device_type,
    ...withoutNullish({
      name: row.name,
      aaguid: row.aaguid,
      createdAt: toDateOrNull(row.created_at),
      lastUsedAt: toDateOrNull(row.last_used_at),
    }),
  }
}

/** The columns of an authenticator insert, in the order of {@link authenticatorValues}. */
export const AUTHENTICATOR_INSERT_COLUMNS =
  "credential_id, user_id, provider_account_id, credential_public_key, counter, credential_device_type, " +
  "credential_backed_up, transports, name, aaguid, created_at"

/** Column values of an authenticator insert; `toDb` converts a date and `backedUp` the boolean for the driver. */
export function authenticatorValues(
  a: AdapterAuthenticator,
  toDb: (date: Date | null) => unknown,
  backedUp: (value: boolean) => unknown,
): unknown[] {
  return [
    a.credentialID,
    a.userId,
    a.providerAccountId,
    a.credentialPublicKey,
    a.counter,
    a.credentialDeviceType,
    backedUp(a.credentialBackedUp),
    a.transports ?? null,
    a.name ?? null,
    a.aaguid ?? null,
    toDb(a.createdAt ? toDate(a.createdAt) : null),
  ]
}

/**
 * Column values of a user for an insert (id, name, email, email key, email_verified, image, role, banned, ban_reason,
 * ban_expires), and the JSON of its other fields. Dates are `Date`s and `banned` a boolean: the driver converts.
 */
export function userValues(user: AdapterUser, id: string): { fields: Record<string, unknown>; extraJson: string } {
  const { fields, extra } = splitExtra(user, USER_COLUMN_FIELDS)
  return {
    fields: {
      id,
      name: fields.name ?? null,
      email: fields.email || null,
      email_key: emailKey(fields.email),
      email_verified: fields.emailVerified ?? null,
      image: fields.image ?? null,
      role: fields.role ?? null,
      banned: fields.banned === true,
      ban_reason: fields.banReason ?? null,
      ban_expires: toDateOrNull(fields.banExpires),
    },
    extraJson: JSON.stringify(extra),
  }
}

/** Column values of an account for an insert, keyed by column name, plus the JSON of its extra fields. */
export function accountValues(account: AdapterAccount): { params: unknown[] } {
  const { fields, extra } = splitExtra(withoutNullish(account), ACCOUNT_FIELDS)
  // In the column order of ACCOUNT_INSERT_COLUMNS, the extra bag (JSON) last.
  return {
    params: [
      fields.userId,
      fields.type,
      fields.provider,
      fields.providerAccountId,
      fields.access_token ?? null,
      fields.refresh_token ?? null,
      fields.expires_at ?? null,
      fields.token_type ?? null,
      fields.scope ?? null,
      fields.id_token ?? null,
      fields.session_state ?? null,
      fields.dpop_key ?? null,
      JSON.stringify(extra),
    ],
  }
}

/** The columns of an account insert, in the order of {@link accountValues}' `params`. */
export const ACCOUNT_INSERT_COLUMNS =
  "user_id, type, provider, provider_account_id, access_token, refresh_token, expires_at, token_type, scope, " +
  "id_token, session_state, dpop_key, extra"

/** Maps a user field to its column; `undefined` for fields kept in the extra bag. */
export const USER_COLUMNS: Readonly<Record<string, string>> = {
  name: "name",
  email: "email",
  emailVerified: "email_verified",
  image: "image",
  role: "role",
  banned: "banned",
  banReason: "ban_reason",
  banExpires: "ban_expires",
}

/**
 * The user fields of an update that have a column (dates as `Date`, `banned` a boolean), the rest (merged into
 * `extra`), and the administration fields written, which an older row may still hold in `extra` (to drop from it).
 */
export function userPatch(patch: Partial<AdapterUser>): {
  columns: Array<[column: string, value: unknown]>
  extra: Record<string, unknown>
  movedOutOfExtra: string[]
} {
  const { fields, extra } = splitExtra(patch, USER_COLUMN_FIELDS)
  const columns: Array<[string, unknown]> = []
  const movedOutOfExtra: string[] = []
  for (const [field, value] of Object.entries(fields)) {
    const column = USER_COLUMNS[field]
    if (column === undefined) continue
    if (field === "banned") columns.push([column, value === true])
    else if (field === "banExpires") columns.push([column, toDateOrNull(value)])
    else columns.push([column, value ?? null])
    if ((ADMIN_USER_FIELDS as readonly string[]).includes(field)) movedOutOfExtra.push(field)
  }
  return { columns, extra, movedOutOfExtra }
}

/** The token columns `updateAccountTokens` may write, in a fixed order. */
export const TOKEN_COLUMNS = [
  "access_token",
  "refresh_token",
  "expires_at",
  "token_type",
  "scope",
  "id_token",
  "dpop_key",
] as const

/**
 * The SET list and values of a token update: only the columns the patch names (`null` clears), with `?`-style or
 * `$n`-style placeholders starting after `offset`.
 */
export function tokenPatchSql(
  patch: Readonly<Record<string, unknown>>,
  placeholder: (index: number) => string,
  offset = 0,
): { set: string; values: unknown[] } {
  const columns = TOKEN_COLUMNS.filter((c) => patch[c] !== undefined)
  return {
    set: columns.map((c, i) => `${c} = ${placeholder(offset + i + 1)}`).join(", "),
    values: columns.map((c) => patch[c] ?? null),
  }
}

// Helpers shared by the adapters: model field lists, email lookup keys, extra-field splitting and fixed errors.
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterTwoFactor,
  AdapterUser,
  TwoFactorPatch,
} from "../adapter"

/** Every adapter returns all methods of the contract. */
export type { Adapter } from "../adapter"

/** User fields that have their own column; anything else is kept in a JSON `extra` bag. */
export const USER_FIELDS = ["id", "name", "email", "emailVerified", "image"] as const

/** Account fields that have their own column; anything else is kept in a JSON `extra` bag. */
export const ACCOUNT_FIELDS = [
  "userId",
  "type",
  "provider",
  "providerAccountId",
  "access_token",
  "refresh_token",
  "expires_at",
  "token_type",
  "scope",
  "id_token",
  "session_state",
  "dpop_key",
] as const

/**
 * The lookup key of an email: lower-cased (full Unicode `toLowerCase()`), `null` when there is no email.
 * Emails are stored as given and matched on this key, so `Ann@Example.com` and `ann@example.com` are one user.
 */
export function emailKey(email: unknown): string | null {
  return typeof email === "string" && email !== "" ? email.toLowerCase() : null
}

/** Splits an object into the listed fields and the rest; `undefined` values are dropped from both. */
export function splitExtra<K extends string>(
  value: Record<string, unknown>,
  known: readonly K[],
): { fields: Partial<Record<K, unknown>>; extra: Record<string, unknown> } {
  const fields: Partial<Record<K, unknown>> = {}
  const extra: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue
    if ((known as readonly string[]).includes(key)) fields[key as K] = v
    else extra[key] = v
  }
  return { fields, extra }
}

/** Parses the JSON `extra` bag of a row; a missing or malformed bag is empty. */
export function parseExtra(json: unknown): Record<string, unknown> {
  if (typeof json === "object" && json !== null) return json as Record<string, unknown>
  if (typeof json !== "string" || json === "") return {}
  try {
    const parsed: unknown = JSON.parse(json)
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** Drops `null`/`undefined` members, as the optional account token fields are absent rather than null. */
export function withoutNullish<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as T
}

/**
 * Codes of the adapters' own errors, read by the core's adapter wrapper (which turns them into a coded `AdapterError`).
 * A plain `Error` with a `code`, like a driver's, so the adapters do not depend on the core's error classes.
 */
export type AdapterErrorCode = "adapter_conflict" | "adapter_not_found"

function coded(message: string, code: AdapterErrorCode, cause: Record<string, unknown>): Error & { code: string } {
  return Object.assign(new Error(message, { cause }), { code })
}

/** The error an update throws when its target does not exist (the contract's return type has no `null`). */
export function notFound(model: "User" | "Authenticator", id: string): Error {
  return coded(`${model} not found`, "adapter_not_found", { id })
}

/** The error a create throws when it would break a uniqueness rule. */
export function conflict(
  what: "User id" | "Email" | "Account" | "Authenticator" | "Audit event",
  cause: Record<string, unknown>,
): Error {
  return coded(`${what} already exists`, "adapter_conflict", cause)
}

/** The error a create throws when the user it refers to does not exist. */
export function missingUser(userId: string): Error {
  return new Error("Referenced user does not exist", { cause: { userId } })
}

/** Converts a driver value (Date, epoch ms number or ISO string) into a Date. */
export function toDate(value: unknown): Date {
  if (value instanceof Date) return new Date(value.getTime())
  if (typeof value === "number") return new Date(value)
  if (typeof value === "bigint") return new Date(Number(value))
  return new Date(String(value))
}

/** Like {@link toDate}, but keeps `null`/`undefined` as `null`. */
export function toDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : toDate(value)
}

/** Converts a driver integer (number, bigint or numeric string) into a number. */
export function toNumber(value: unknown): number {
  return typeof value === "number" ? value : Number(value)
}

/** A fresh user id for a `createUser` call that did not pass one. */
export function newUserId(user: Partial<AdapterUser>): string {
  return typeof user.id === "string" && user.id !== "" ? user.id : crypto.randomUUID()
}

/** Copies the contract fields of an authenticator, so callers never share objects with the store. */
export function copyAuthenticator(a: AdapterAuthenticator): AdapterAuthenticator {
  return {
    userId: a.userId,
    providerAccountId: a.providerAccountId,
    counter: a.counter,
    credentialBackedUp: a.credentialBackedUp,
    credentialID: a.credentialID,
    credentialPublicKey: a.credentialPublicKey,
    transports: a.transports ?? null,
    credentialDeviceType: a.credentialDeviceType,
    ...withoutNullish({
      name: a.name,
      aaguid: a.aaguid,
      createdAt: toDateOrNull(a.createdAt),
      lastUsedAt: toDateOrNull(a.lastUsedAt),
    }),
  }
}

/** Copies a session. */
export function copySession(s: AdapterSession): AdapterSession {
  const out: AdapterSession = { sessionToken: s.sessionToken, userId: s.userId, expires: toDate(s.expires) }
  // The management fields are copied only when set, so sessions without them keep their Auth.js shape.
  if (s.createdAt !== undefined && s.createdAt !== null) out.createdAt = toDate(s.createdAt)
  if (s.lastActiveAt !== undefined && s.lastActiveAt !== null) out.lastActiveAt = toDate(s.lastActiveAt)
  if (typeof s.userAgent === "string") out.userAgent = s.userAgent
  if (typeof s.ip === "string") out.ip = s.ip
  if (typeof s.provider === "string") out.provider = s.provider
  if (typeof s.idpSid === "string") out.idpSid = s.idpSid
  if (typeof s.idpSub === "string") out.idpSub = s.idpSub
  if (s.authTime !== undefined && s.authTime !== null) out.authTime = Number(s.authTime)
  if (typeof s.impersonatedBy === "string") out.impersonatedBy = s.impersonatedBy
  return out
}

/** The `provider` + `providerAccountId` pair that identifies an account. */
export type AccountKey = Pick<AdapterAccount, "provider" | "providerAccountId">

/**
 * Deep-copies plain data (objects, arrays, Dates, primitives). Used instead of `structuredClone`, whose copies belong
 * to the main realm: under jest's VM context they would fail `instanceof Date`.
 */
export function deepCopy<T>(value: T): T {
  if (value instanceof Date) return new Date(value.getTime()) as T
  if (Array.isArray(value)) return value.map((item: unknown) => deepCopy(item)) as T
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) out[key] = deepCopy(item)
    return out as T
  }
  return value
}

/** A two-factor row with every field copied (dates as `Date`, a fresh `backupCodes` array). */
export function copyTwoFactor(row: AdapterTwoFactor): AdapterTwoFactor {
  return {
    userId: row.userId,
    secret: row.secret,
    verifiedAt: row.verifiedAt === null || row.verifiedAt === undefined ? null : new Date(row.verifiedAt),
    lastUsedStep: Number(row.lastUsedStep ?? 0),
    backupCodes: Array.isArray(row.backupCodes) ? row.backupCodes.map((c) => (typeof c === "string" ? c : null)) : [],
    version: Number(row.version ?? 0),
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  }
}

/** A stored row after `patch`: version bumped, `updatedAt` now; `undefined` fields left alone. */
export function patchedTwoFactor(row: AdapterTwoFactor, patch: TwoFactorPatch, now = new Date()): AdapterTwoFactor {
  const next = copyTwoFactor(row)
  if (patch.secret !== undefined) next.secret = patch.secret
  if (patch.verifiedAt !== undefined) next.verifiedAt = patch.verifiedAt === null ? null : new Date(patch.verifiedAt)
  if (patch.lastUsedStep !== undefined) next.lastUsedStep = patch.lastUsedStep
  if (patch.backupCodes !== undefined) next.backupCodes = [...patch.backupCodes]
  next.version = row.version + 1
  next.updatedAt = now
  return next
}
/** The position of a user in the `listUsers` order: users with an email first by (email key, id), then by id. */
export function compareUsers(a: { emailKey: string | null; id: string }, b: { emailKey: string | null; id: string }) {
  if (a.emailKey !== b.emailKey) {
    if (a.emailKey === null) return 1
    if (b.emailKey === null) return -1
    return a.emailKey < b.emailKey ? -1 : 1
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/**
 * `listUsers` over users held in memory (the memory adapter, and Redis after a scan): filtered, ordered, paged.
 *
 * @example
 * ```ts
 * listUsersIn([...users.values()], { emailPrefix: "ad", limit: 10 })
 * ```
 */
export function listUsersIn<U extends { id: string; email: string | null }>(
  users: readonly U[],
  filter: { emailPrefix?: string; id?: string; after?: { emailKey: string | null; id: string }; limit: number },
): U[] {
  const keyed = users.map((user) => ({ user, emailKey: emailKey(user.email), id: user.id }))
  return keyed
    .filter((u) => {
      const filtered = filter.emailPrefix !== undefined || filter.id !== undefined
      if (filtered) {
        const byPrefix = filter.emailPrefix !== undefined && u.emailKey?.startsWith(filter.emailPrefix) === true
        const byId = filter.id !== undefined && u.id === filter.id
        if (!byPrefix && !byId) return false
      }
      return !filter.after || compareUsers(u, filter.after) > 0
    })
    .sort(compareUsers)
    .slice(0, filter.limit)
    .map((u) => u.user)
}

/** Escapes SQL `LIKE` metacharacters (with `\` as the escape character) so a search prefix matches literally. */
export const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * The verification-token identifiers that belong to a user with this email key (lower-cased): the email itself and
 * the link tokens of Gatehouse passwords. `deleteUser` removes the tokens under them.
 */
export const userTokenIdentifiers = (key: string): string[] => [
  key,
  `gatehouse:verify-email:${key}`,
  `gatehouse:password-reset:${key}`,
]

const LINK_TOKEN_PREFIXES = ["gatehouse:verify-email:", "gatehouse:password-reset:"] as const

/**
 * The email key that a verification token's identifier belongs to: the lower-cased identifier without the prefix of
 * a Gatehouse password link. An adapter that cannot select tokens by identifier indexes them under it, so that
 * `deleteUser` finds every identifier of {@link userTokenIdentifiers} with one lookup.
 */
export function tokenOwnerKey(identifier: string): string {
  const lower = identifier.toLowerCase()
  const prefix = LINK_TOKEN_PREFIXES.find((p) => lower.startsWith(p))
  return prefix === undefined ? lower : lower.slice(prefix.length)
}

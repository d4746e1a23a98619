// What the Redis adapter's method groups share: the key layout under the prefix, and records revived from JSON.
import { createHash } from "node:crypto"
import type { Cluster, Redis } from "ioredis"
import type { AdapterAccount, AdapterAuthenticator, AdapterSession, AdapterUser, VerificationToken } from "../adapter"
import { copyAuthenticator, copySession, emailKey, missingUser, notFound } from "../internal/models"
import type { AccountKey } from "../internal/models"
import { withoutPassword } from "../internal/password"
import { replicated } from "./replicas"
import type { ReplicaWait } from "./replicas"

/** How many times an optimistic update or delete retries when a concurrent write changed the record. */
export const MAX_RETRIES = 100

/** A user as its JSON holds it: the dates are ISO strings. */
interface StoredUser {
  id: string
  email: string | null
  emailVerified: string | null
  banExpires?: string | null
  [key: string]: unknown
}

export const reviveUser = (json: string): AdapterUser => {
  const { emailVerified, banExpires, ...user } = JSON.parse(json) as StoredUser
  return {
    ...user,
    emailVerified: emailVerified ? new Date(emailVerified) : null,
    // The end of a ban is a Date like emailVerified; a user written before the field existed has none.
    ...(banExpires === undefined ? {} : { banExpires: banExpires === null ? null : new Date(banExpires) }),
  }
}
export const reviveSession = (json: string): AdapterSession => copySession(JSON.parse(json) as AdapterSession)
export const reviveToken = (json: string): VerificationToken => {
  const token = JSON.parse(json) as VerificationToken
  return { identifier: token.identifier, token: token.token, expires: new Date(token.expires) }
}
/** An account answer; a password row's hash stays out of it (only `getPasswordAccount` answers it). */
export const reviveAccount = (json: string): AdapterAccount => withoutPassword(JSON.parse(json) as AdapterAccount)
export const reviveAuthenticator = (json: string): AdapterAuthenticator =>
  copyAuthenticator(JSON.parse(json) as AdapterAuthenticator)

const sha256 = (value: string): string => createHash("sha256").update(value).digest("hex")

/**
 * The key names under prefix `p` (see `RedisAdapter` for the list). With `tagged` (the cluster layout) the keys of one
 * user (record, accounts, sessions, authenticators) carry the hash tag `{<id>}`, so they share one slot.
 */
export function keyLayout(p: string, tagged = false) {
  const enc = encodeURIComponent
  const own = (id: string) => (tagged ? `{${id}}` : id)
  return {
    user: (id: string) => `${p}user:${own(id)}`,
    email: (k: string) => `${p}email:${k}`,
    account: (a: AccountKey) => `${p}account:${enc(a.provider)}:${enc(a.providerAccountId)}`,
    session: (token: string) => `${p}session:${token}`,
    token: (identifier: string, token: string) => `${p}vt:${enc(identifier)}:${enc(token)}`,
    // The verification tokens of one email key (`tokenOwnerKey` of their identifiers), for `deleteUser`.
    tokensOf: (emailKey: string) => `${p}vt-email:${emailKey}`,
    authenticator: (id: string) => `${p}authenticator:${id}`,
    accountsOf: (id: string) => `${p}user-accounts:${own(id)}`,
    sessionsOf: (id: string) => `${p}user-sessions:${own(id)}`,
    // Back-channel logout indexes: the OP's session id and subject are hashed, so key names never hold them raw.
    idpSid: (provider: string, sid: string) => `${p}idp-sid:${enc(provider)}:${sha256(sid)}`,
    idpSub: (provider: string, sub: string) => `${p}idp-sub:${enc(provider)}:${sha256(sub)}`,
    // Named in place of an index a session does not join; never written.
    idpNone: `${p}idp-none`,
    authenticatorsOf: (id: string) => `${p}user-authenticators:${own(id)}`,
    twoFactor: (id: string) => `${p}two-factor:${own(id)}`,
    // The user listing: a sorted set (score 0) of `directoryMember`s, and the mark that it holds every user.
    usersByEmail: `${p}users-by-email`,
    usersByEmailReady: `${p}users-by-email:ready`,
  }
}

/** The client, the prefix and the key layout every method group works with. */
export interface RedisContext {
  client: Redis | Cluster
  p: string
  key: ReturnType<typeof keyLayout>
  /** The adapter's `waitForReplicas`, applied by {@link durable}. */
  wait?: ReplicaWait
}

/** After a write that must survive a failover: waits for the replicas of the node owning `key` (when configured). */
export const durable = (ctx: RedisContext, key: string): Promise<void> => replicated(ctx.client, ctx.wait, key)

/** The email index key of an address, or `""` when there is no email. */
export function emailIndex(ctx: RedisContext, email: unknown): string {
  const k = emailKey(email)
  return k === null ? "" : ctx.key.email(k)
}

/** The verification-token index of a user's address, or `""` when there is no email. */
export function tokenIndex(ctx: RedisContext, email: unknown): string {
  const k = emailKey(email)
  return k === null ? "" : ctx.key.tokensOf(k)
}

/**
 * A user's member in the `users-by-email` sorted set: the lower-cased email, a 0 byte and the id, so that `ZRANGEBYLEX`
 * answers the listing order (email, then id). A user without an email gets the byte 0xFF in place of one (no UTF-8
 * text holds it), so those come last, ordered by id.
 */
export function directoryMember(emailKeyOrNull: string | null, id: string): Buffer {
  const head = emailKeyOrNull === null ? Buffer.from([0xff]) : Buffer.from(emailKeyOrNull, "utf8")
  return Buffer.concat([head, Buffer.from([0]), Buffer.from(id, "utf8")])
}

/** The `users-by-email` member of a user as stored. */
export const directoryMemberOf = (user: { email?: unknown; id: string }): Buffer =>
  directoryMember(emailKey(user.email), user.id)

/** A record's expiry as the epoch milliseconds of `PXAT`. */
export const pxat = (date: Date): number => new Date(date).getTime()

/**
 * Reads user `patch.id` for an optimistic update: the stored JSON (the compare-and-swap's expected value), the user
 * before and after the patch (`undefined` fields left alone) and the new JSON. Throws `adapter_not_found` if missing.
 */
export async function userUpdate(
  ctx: RedisContext,
  patch: Partial<AdapterUser> & Pick<AdapterUser, "id">,
): Promise<{ current: string; before: AdapterUser; next: AdapterUser; json: string }> {
  const current = await ctx.client.get(ctx.key.user(patch.id))
  if (current === null) throw notFound("User", patch.id)
  const before = JSON.parse(current) as AdapterUser
  const next = { ...before, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) }
  return { current, before, next, json: JSON.stringify(next) }
}

/** Turns a create script's status into the adapters' fixed errors. */
export function expectOk(status: unknown, userId: string, onExists: () => Error): void {
  if (status === "user") throw missingUser(userId)
  if (status === "exists") throw onExists()
}

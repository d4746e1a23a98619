/**
 * Changing the email address (accounts.md §2.5): two mails, and only the link to the new address changes it; the
 * old address can cancel (and revert) for longer. One pending record per user in the key-value store.
 */
import { EmailInUse, InvalidEmail } from "../../../errors"
import { recordAudit } from "../../kernel/audit"
import type { ResolvedConfig } from "../../kernel/config/types"
import { limitIdentifierOf } from "../../kernel/rate-limit/by-user"
import { constantTimeEqual } from "../../kernel/secrets"
import { revokeUserSessions } from "../../session/manage"
import type { SessionContext } from "../../session/types"
import { hashLinkToken, maskEmail, newLinkToken, sendAccountEmail, userIdOfLinkToken } from "./mail"
import { keepOnlyCurrentSession } from "./sessions"
import { directory, subjectForChange } from "../../session/subject"

/** The pending change of one user, under `acct-email:<userId>`. */
interface EmailChangeRecord {
  id: string
  newEmail: string
  oldEmail: string | null
  verifyHash: string
  cancelHash: string
  redirectTo: string
  state: "pending" | "applied" | "cancelled"
  createdAt: number
  appliedAt?: number
}

const recordKey = (userId: string) => `acct-email:${userId}`

async function readRecord(config: ResolvedConfig, userId: string): Promise<EmailChangeRecord | null> {
  const [json] = await config.store.get([recordKey(userId)])
  if (!json) return null
  try {
    return JSON.parse(json) as EmailChangeRecord
  } catch {
    return null
  }
}

const writeRecord = (config: ResolvedConfig, userId: string, record: EmailChangeRecord) =>
  config.store.set(recordKey(userId), JSON.stringify(record), config.accounts.account!.emailChangeCancelMaxAge)

/** The address of the user's change in progress, else `null`. */
export async function pendingEmailOf(config: ResolvedConfig, userId: string): Promise<string | null> {
  if (!config.accounts.account) return null
  const record = await readRecord(config, userId)
  const fresh = record && Date.now() - record.createdAt < config.accounts.account.emailChangeMaxAge * 1000
  return record?.state === "pending" && fresh ? record.newEmail : null
}

/** The §2.5 input rules: one `@`, a local part, a dotted domain, no whitespace or controls, at most 254 characters. */
export function checkNewEmail(input: unknown, current: string | null): string {
  const bad = (why: string) => new InvalidEmail("Not a usable email address", { cause: { reason: why } })
  if (typeof input !== "string") throw bad("missing")
  const email = input.trim()
  if (email.length === 0 || email.length > 254) throw bad("length")
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(email)) throw bad("whitespace")
  const parts = email.split("@")
  if (parts.length !== 2 || parts[0] === "" || !/^[^.]+(\.[^.]+)+$/.test(parts[1]!)) throw bad("shape")
  if (current !== null && email.toLowerCase() === current.toLowerCase()) throw bad("unchanged")
  return email
}

/**
 * Starts a change to `newEmail`: checks, refuses a taken address (`EmailInUse`, audited), stores the pending record
 * and mails both links. Resolves once both mails are handed to `sendEmail`.
 *
 * @example
 * ```ts
 * await changeEmail(ctx, { email: "ada.new@example.com", origin: "https://app.example", redirectTo: "/settings" })
 * ```
 */
export async function changeEmail(
  ctx: SessionContext,
  input: { email: unknown; origin: string; redirectTo?: string },
): Promise<true> {
  const { config } = ctx
  const options = config.accounts.account
  const subject = await subjectForChange(ctx)
  const user = subject.user
  if (!options || !user) throw new InvalidEmail("This account has no stored user", { cause: { reason: "user" } })
  const email = checkNewEmail(input.email, user.email)
  await limitIdentifierOf(config, "account-email-change", subject.userId)
  const store = directory(config)
  const holder = await store.getUserByEmail(email)
  if (holder && holder.id !== user.id) {
    await recordAudit(ctx, {
      type: "email.change_requested",
      userId: user.id,
      outcome: "failure",
      reason: "EmailInUse",
    })
    throw new EmailInUse("The address belongs to another account")
  }
  const verifyToken = newLinkToken(user.id)
  const cancelToken = newLinkToken(user.id)
  const record: EmailChangeRecord = {
    id: hashLinkToken(verifyToken).slice(0, 22),
    newEmail: email,
    oldEmail: user.email ?? null,
    verifyHash: hashLinkToken(verifyToken),
    cancelHash: hashLinkToken(cancelToken),
    redirectTo: input.redirectTo ?? "/",
    state: "pending",
    createdAt: Date.now(),
  }
  await writeRecord(config, user.id, record)
  const base = `${input.origin}${config.basePath}/account`
  try {
    await sendAccountEmail(config, {
      type: "email-change-verify",
      to: email,
      url: `${base}/verify-email?token=${verifyToken}`,
      expires: new Date(record.createdAt + options.emailChangeMaxAge * 1000),
      user,
    })
    if (user.email) {
      await sendAccountEmail(config, {
        type: "email-change-notice",
        to: user.email,
        url: `${base}/cancel-email?token=${cancelToken}`,
        expires: new Date(record.createdAt + options.emailChangeCancelMaxAge * 1000),
        user,
        newEmailMasked: maskEmail(email),
      })
    }
  } catch (error) {
    // The links of a half-sent change must fail, and a retry starts clean.
    await writeRecord(config, user.id, { ...record, state: "cancelled" })
    throw error
  }
  await recordAudit(ctx, { type: "email.change_requested", userId: user.id })
  return true
}

/** The record a link token opens, when its hash matches the record's `which` hash. */
async function recordOfToken(config: ResolvedConfig, token: unknown, which: "verifyHash" | "cancelHash") {
  const userId = userIdOfLinkToken(token)
  if (userId === null || !config.accounts.account) return null
  const record = await readRecord(config, userId)
  if (!record || !constantTimeEqual(record[which], hashLinkToken(token as string))) return null
  return { userId, record }
}

/**
 * The verify link's POST: applies the change once, then revokes every other session of the user (the requesting
 * browser's own session, when it is the user's, is kept and carries the new address). Resolves to where to go.
 *
 * @example
 * ```ts
 * const { redirect } = await verifyEmailChange(ctx, token, errorPage)
 * ```
 */
export async function verifyEmailChange(ctx: SessionContext, token: unknown): Promise<{ error?: string; to?: string }> {
  const { config } = ctx
  const found = await recordOfToken(config, token, "verifyHash")
  const maxAge = (config.accounts.account?.emailChangeMaxAge ?? 0) * 1000
  if (!found || found.record.state !== "pending" || Date.now() - found.record.createdAt > maxAge) {
    return { error: "Verification" }
  }
  const { userId, record } = found
  if (!(await config.store.consume(`acct-email-used:${record.id}`, config.accounts.account!.emailChangeCancelMaxAge))) {
    return { error: "Verification" }
  }
  const store = directory(config)
  const holder = await store.getUserByEmail(record.newEmail)
  if (holder && holder.id !== userId) return { error: "EmailInUse" }
  const user = await store.updateUser({ id: userId, email: record.newEmail, emailVerified: new Date() })
  await config.events.updateUser({ user })
  await writeRecord(config, userId, { ...record, state: "applied", appliedAt: Date.now() })
  await recordAudit(ctx, { type: "email.changed", userId })
  await keepOnlyCurrentSession(ctx, userId, { email: record.newEmail })
  return { to: record.redirectTo }
}

/**
 * The cancel link's POST: a pending change is cancelled; an applied one is reverted to the old address (when still
 * free) and every session of the user ends. Resolves to an error for a bad link.
 *
 * @example
 * ```ts
 * const { error } = await cancelEmailChange(ctx, token)
 * ```
 */
export async function cancelEmailChange(ctx: SessionContext, token: unknown): Promise<{ error?: string }> {
  const { config } = ctx
  const found = await recordOfToken(config, token, "cancelHash")
  const maxAge = (config.accounts.account?.emailChangeCancelMaxAge ?? 0) * 1000
  if (!found || found.record.state === "cancelled" || Date.now() - found.record.createdAt > maxAge) {
    return { error: "Verification" }
  }
  const { userId, record } = found
  if (record.state === "pending") {
    await writeRecord(config, userId, { ...record, state: "cancelled" })
    await recordAudit(ctx, { type: "email.change_cancelled", userId })
    return {}
  }
  const store = directory(config)
  if (record.oldEmail !== null) {
    const holder = await store.getUserByEmail(record.oldEmail)
    if (!holder || holder.id === userId) {
      const user = await store.updateUser({ id: userId, email: record.oldEmail })
      await config.events.updateUser({ user })
    }
  }
  await writeRecord(config, userId, { ...record, state: "cancelled" })
  await revokeUserSessions(config, userId, { reason: "email-change", source: ctx })
  await recordAudit(ctx, { type: "email.change_cancelled", userId, reason: "reverted" })
  return {}
}

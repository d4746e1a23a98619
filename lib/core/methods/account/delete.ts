/**
 * Deleting one's account (accounts.md §2.6): at once, or after a mailed confirmation link. Deletion revokes every
 * session (rows and the JWT watermark), deletes everything of the user through the adapter, clears the browser's
 * session cookie and writes `account.deleted`.
 */
import { constantTimeEqual } from "../../kernel/secrets"
import { clearSessionCookie } from "../../kernel/cookies/session-store"
import { clearImpersonator } from "../../session/impersonation"
import { deleteUser } from "../../session/manage"
import { currentPrincipal, forgetPrincipal } from "../../session/principal"
import type { SessionContext } from "../../session/types"
import { limitIdentifierOf } from "../../kernel/rate-limit/by-user"
import { hashLinkToken, newLinkToken, sendAccountEmail, userIdOfLinkToken } from "./mail"
import { subjectForChange } from "../../session/subject"

const recordKey = (userId: string) => `acct-delete:${userId}`

interface DeleteRecord {
  id: string
  hash: string
  redirectTo: string
}

function parseRecord(json: string | null | undefined): DeleteRecord | null {
  if (!json) return null
  try {
    return JSON.parse(json) as DeleteRecord
  } catch {
    return null
  }
}

/** Deletes `userId` and, when the request's session is that user's, clears its cookie. */
async function deleteNow(ctx: SessionContext, userId: string, confirmed: boolean): Promise<void> {
  const door = await currentPrincipal(ctx)
  await deleteUser(ctx.config, userId, { confirmed, source: ctx })
  if (door.ok && door.principal.userId === userId) {
    clearSessionCookie(ctx.jar, door.cookie.present, ctx.cookies.sessionToken.options)
    clearImpersonator(ctx)
    forgetPrincipal(ctx)
  }
}

/**
 * Deletes the session user's account, or (with `deleteConfirmation: "email"` and an address) mails the link that will.
 *
 * @example
 * ```ts
 * const result = await deleteAccount(ctx, { origin: "https://app.example" }) // { deleted: true }
 * ```
 */
export async function deleteAccount(
  ctx: SessionContext,
  input: { origin: string; redirectTo?: string },
): Promise<{ deleted: true } | { pending: true }> {
  const { config } = ctx
  const subject = await subjectForChange(ctx)
  const options = config.accounts.account
  const user = subject.user
  if (options?.deleteConfirmation === "email" && user?.email) {
    await limitIdentifierOf(config, "account-delete", subject.userId)
    const token = newLinkToken(user.id)
    const ttl = options.deleteConfirmationMaxAge
    const record = {
      id: hashLinkToken(token).slice(0, 22),
      hash: hashLinkToken(token),
      redirectTo: input.redirectTo ?? "/",
    }
    await config.store.set(recordKey(user.id), JSON.stringify(record), ttl)
    try {
      await sendAccountEmail(config, {
        type: "delete-confirm",
        to: user.email,
        url: `${input.origin}${config.basePath}/account/confirm-delete?token=${token}`,
        expires: new Date(Date.now() + ttl * 1000),
        user,
      })
    } catch (error) {
      await config.store.set(recordKey(user.id), JSON.stringify({ ...record, hash: "" }), ttl)
      throw error
    }
    return { pending: true }
  }
  await deleteNow(ctx, subject.userId, false)
  return { deleted: true }
}

/**
 * The confirmation link's POST: deletes the account once. Resolves to where to go, or `Verification` for a bad,
 * used or expired link.
 *
 * @example
 * ```ts
 * const { error, to } = await confirmDelete(ctx, token)
 * ```
 */
export async function confirmDelete(ctx: SessionContext, token: unknown): Promise<{ error?: string; to?: string }> {
  const { config } = ctx
  const userId = userIdOfLinkToken(token)
  const ttl = config.accounts.account?.deleteConfirmationMaxAge
  if (userId === null || ttl === undefined) return { error: "Verification" }
  const [json] = await config.store.get([recordKey(userId)])
  const record = parseRecord(json)
  if (!record || !record.hash || !constantTimeEqual(record.hash, hashLinkToken(token as string))) {
    return { error: "Verification" }
  }
  if (!(await config.store.consume(`acct-delete-used:${record.id}`, ttl))) return { error: "Verification" }
  await config.store.set(recordKey(userId), JSON.stringify({ ...record, hash: "" }), ttl)
  await deleteNow(ctx, userId, true)
  return { to: record.redirectTo }
}

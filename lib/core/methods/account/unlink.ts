/** `unlinkAccount` (accounts.md §2.4): removes one of the user's OAuth/OIDC accounts, never the last way in. */
import { InvalidRequest, LastCredential, NotFound } from "../../../errors"
import { recordAudit } from "../../kernel/audit"
import type { SessionContext } from "../../session/types"
import { overviewOf } from "./overview"
import { directory, subjectForChange } from "../../session/subject"

/** A required id field: a string of 1–255 characters, else `InvalidRequest`. */
export function idField(name: string, value: unknown): string {
  if (typeof value !== "string" || value.length < 1 || value.length > 255) {
    throw new InvalidRequest(`${name} must be a string of 1 to 255 characters`, { cause: { field: name } })
  }
  return value
}

/**
 * Unlinks `(provider, providerAccountId)` from the session user. A foreign or missing account, or one that is not
 * `oauth`/`oidc`, is `NotFound`; the user's last sign-in method is `LastCredential`.
 *
 * @example
 * ```ts
 * await unlinkAccount(ctx, "github", "583231")
 * ```
 */
export async function unlinkAccount(ctx: SessionContext, provider: unknown, providerAccountId: unknown): Promise<true> {
  const { config } = ctx
  const subject = await subjectForChange(ctx)
  const providerId = idField("provider", provider)
  const accountId = idField("providerAccountId", providerAccountId)
  const store = directory(config)
  const rows = subject.user ? await store.listAccountsByUserId(subject.userId) : []
  const row = rows.find(
    (a) => a.provider === providerId && a.providerAccountId === accountId && (a.type === "oauth" || a.type === "oidc"),
  )
  if (!row) throw new NotFound("No such account")
  const overview = await overviewOf(config, subject.userId, subject.user)
  if (overview.methods - 1 <= 0) throw new LastCredential("This is the last way to sign in to this account")
  await store.unlinkAccount({ provider: providerId, providerAccountId: accountId })
  await recordAudit(ctx, { type: "account.unlinked", userId: subject.userId, provider: providerId })
  return true
}

/**
 * Passkey management for the signed-in user: list, rename, delete (B.1 management API). Every call checks ownership
 * (GHSA-4vcf): an id the user does not own answers exactly like a missing one. Deleting needs a fresh session and
 * refuses to remove the user's last way to sign in.
 */
import { need, store } from "../../kernel/config/stores"
import { recordAudit } from "../../kernel/audit"
import type { AdapterAuthenticator, AdapterUser } from "../../../storage/adapter"
import { InvalidRequest, LastCredential, NotFound, SessionNotFresh } from "../../../errors"
import { isSessionFresh } from "../../session/manage"
import { signedInUser } from "../../session/principal"
import { userForChange } from "../../session/for-change"
import type { SessionContext } from "../../session/types"
import { findAuthenticator, toBase64Url } from "../../../webauthn/encoding"

/** One passkey as the management API shows it: never the public key or the counter. Times in epoch seconds. */
export interface PasskeyInfo {
  id: string
  name: string
  createdAt: number | null
  lastUsedAt: number | null
  deviceType: string
  backedUp: boolean
  transports: string[]
}

const seconds = (date: Date | null | undefined): number | null =>
  date ? Math.floor(new Date(date).getTime() / 1000) : null

function info(a: AdapterAuthenticator): PasskeyInfo {
  return {
    id: toBase64Url(a.credentialID),
    name: a.name ?? "Passkey",
    createdAt: seconds(a.createdAt),
    lastUsedAt: seconds(a.lastUsedAt),
    deviceType: a.credentialDeviceType,
    backedUp: a.credentialBackedUp,
    transports: a.transports ? a.transports.split(",").filter(Boolean) : [],
  }
}

/** The signed-in user, through the one door; `null` without a session or without passkey storage. */
async function signedIn(ctx: SessionContext): Promise<AdapterUser | null> {
  if (!ctx.config.stores.webauthn) return null
  return signedInUser(ctx)
}

/** The signed-in user about to change a passkey (never an impersonation session); else as {@link signedIn}. */
async function changer(ctx: SessionContext): Promise<AdapterUser | null> {
  const user = await userForChange(ctx)
  return ctx.config.stores.webauthn ? user : null
}

/** The credential `id` (base64url, as listed) if the user owns it; else `NotFound`, the same for missing and foreign. */
async function owned(ctx: SessionContext, user: AdapterUser | null, id: unknown): Promise<AdapterAuthenticator> {
  const adapter = store(ctx.config, "webauthn")
  const stored = typeof id === "string" ? await findAuthenticator(adapter, id) : null
  if (!stored || !user || stored.userId !== user.id) throw new NotFound("No such passkey")
  return stored
}

/**
 * The signed-in user's passkeys, or `null` without a session.
 *
 * @example
 * ```ts
 * const passkeys = await listPasskeys(ctx) // [{ id, name, createdAt, lastUsedAt, deviceType, backedUp, transports }]
 * ```
 */
export async function listPasskeys(ctx: SessionContext): Promise<PasskeyInfo[] | null> {
  const user = await signedIn(ctx)
  if (!user) return null
  const adapter = store(ctx.config, "webauthn")
  return (await adapter.listAuthenticatorsByUserId(user.id)).map(info)
}

/**
 * Renames one of the signed-in user's passkeys. The name is trimmed and must be 1-64 characters.
 *
 * @throws NotFound when the id is missing or not the user's (or nobody is signed in).
 * @example
 * ```ts
 * await renamePasskey(ctx, id, "Work laptop")
 * ```
 */
export async function renamePasskey(ctx: SessionContext, id: unknown, name: unknown): Promise<PasskeyInfo> {
  const stored = await owned(ctx, await changer(ctx), id)
  const trimmed = typeof name === "string" ? name.trim() : ""
  if (trimmed.length < 1 || [...trimmed].length > 64) {
    throw new InvalidRequest("A passkey name is 1 to 64 characters", { cause: { length: trimmed.length } })
  }
  const adapter = store(ctx.config, "webauthn")
  const updated = await need(adapter.updateAuthenticator, "updateAuthenticator")(stored.credentialID, { name: trimmed })
  if (!updated) throw new NotFound("No such passkey")
  return info(updated)
}

/**
 * Deletes one of the signed-in user's passkeys and its `webauthn` account row.
 *
 * @throws NotFound when the id is missing or not the user's; SessionNotFresh when `isSessionFresh` says no (the
 *   session's recorded sign-in time is older than `session.freshAge`, or it records none); LastCredential when it is
 *   the user's only passkey and no email provider could sign them in.
 * @example
 * ```ts
 * await deletePasskey(ctx, id)
 * ```
 */
export async function deletePasskey(ctx: SessionContext, id: unknown): Promise<void> {
  const { config } = ctx
  const user = await changer(ctx)
  const stored = await owned(ctx, user, id)
  // The one freshness rule (the sign-in time the session records), as every other sensitive change uses.
  if (!user || !(await isSessionFresh(ctx))) {
    throw new SessionNotFresh("Sign in again to delete a passkey", { cause: { freshAge: config.session.freshAge } })
  }
  const adapter = store(config, "webauthn")
  const others = (await adapter.listAuthenticatorsByUserId(user.id)).filter(
    (a) => a.credentialID !== stored.credentialID,
  )
  const byEmail = Boolean(user.email) && config.providers.some((p) => p.type === "email")
  // OAuth/OIDC accounts count too where the adapter can list them (accounts.md §2.4).
  const listAccounts = config.accounts.store?.listAccountsByUserId
  const byProvider = listAccounts
    ? (await listAccounts(user.id)).some((a) => a.type === "oauth" || a.type === "oidc")
    : false
  if (others.length === 0 && !byEmail && !byProvider) {
    throw new LastCredential("This is the last way to sign in to this account")
  }
  await need(adapter.deleteAuthenticator, "deleteAuthenticator")(stored.credentialID)
  let passkeyProvider: string | null = null
  for (const provider of config.providers) {
    if (provider.type !== "webauthn") continue
    passkeyProvider ??= provider.id
    const account = await adapter.getAccount(stored.providerAccountId, provider.id)
    if (account?.userId === user.id) {
      passkeyProvider = provider.id
      await need(
        adapter.unlinkAccount,
        "unlinkAccount",
      )({ provider: provider.id, providerAccountId: stored.providerAccountId })
    }
  }
  await recordAudit(ctx, { type: "passkey.removed", userId: user.id, provider: passkeyProvider })
}

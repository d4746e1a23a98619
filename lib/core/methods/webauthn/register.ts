/** Registration storage: user (when new), account and authenticator written as one unit (transaction, or undo). */
import { store } from "../../kernel/config/stores"
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterUser,
  AuthenticatorAdapter,
  UserAdapter,
} from "../../../storage/adapter"
import { MissingAdapterMethods } from "../../../errors"
import type { RequestContext } from "../../kernel/context"
import type { Account } from "../../kernel/types"
import type { AuthenticatorTransportFuture } from "../../../webauthn/encoding"
import type { ResolvedWebAuthnProvider } from "../../../webauthn/provider"
import { defaultCredentialName } from "./users"
import { recordAudit } from "../../kernel/audit"
import { sessionContext } from "../../session/context"

/** What a verified registration gives to store. */
export interface NewCredential {
  /** base64url, as the browser reports it. */
  id: string
  publicKey: Uint8Array
  counter: number
  transports: AuthenticatorTransportFuture[] | string[]
  deviceType: string
  backedUp: boolean
  aaguid?: string
}

/** The writes of a registration; `deleteUser`/`unlinkAccount` undo them without a transaction, when present. */
type Writer = Pick<UserAdapter, "createUser" | "linkAccount"> &
  Pick<AuthenticatorAdapter, "createAuthenticator"> &
  Partial<Pick<UserAdapter, "deleteUser" | "unlinkAccount">>

/** The transaction's adapter as a writer (bound: a driver's transaction object may rely on `this`). */
function writerOf(tx: Adapter): Writer {
  if (!tx.createUser || !tx.linkAccount || !tx.createAuthenticator) {
    throw new MissingAdapterMethods("The transaction adapter lacks createUser, linkAccount or createAuthenticator")
  }
  return {
    createUser: tx.createUser.bind(tx),
    linkAccount: tx.linkAccount.bind(tx),
    createAuthenticator: tx.createAuthenticator.bind(tx),
  }
}

/**
 * Stores a verified credential for `user`, or for `newUser` (created with `emailVerified: null`, B.2 rule 7). In the
 * adapter's `transaction()` when it has one; else each written row is removed again if a later write fails, so a
 * failure never leaves a user without its account or an account without its authenticator.
 *
 * @example
 * ```ts
 * const { user, account } = await registerCredential(ctx, provider, { newUser, credential })
 * ```
 */
export async function registerCredential(
  ctx: RequestContext,
  provider: ResolvedWebAuthnProvider,
  params: { user?: AdapterUser; newUser?: AdapterUser; credential: NewCredential },
): Promise<{ user: AdapterUser; account: Account }> {
  const { credential } = params
  const credentialID = Buffer.from(credential.id, "base64url").toString("base64")
  const accountFor = (userId: string): AdapterAccount => ({
    userId,
    type: "webauthn",
    provider: provider.id,
    providerAccountId: credentialID,
  })
  const authenticatorFor = (userId: string): AdapterAuthenticator => ({
    userId,
    providerAccountId: credentialID,
    credentialID,
    credentialPublicKey: Buffer.from(credential.publicKey).toString("base64"),
    counter: credential.counter,
    credentialDeviceType: credential.deviceType,
    credentialBackedUp: credential.backedUp,
    transports: credential.transports.length > 0 ? credential.transports.join(",") : null,
    name: defaultCredentialName(credential.aaguid),
    aaguid: credential.aaguid ?? null,
    createdAt: new Date(),
  })

  const write = async (a: Writer, undo: Array<() => Promise<unknown>>) => {
    const user = params.user ?? (await a.createUser(params.newUser as AdapterUser))
    if (!params.user) undo.push(async () => a.deleteUser?.(user.id))
    const account = accountFor(user.id)
    await a.linkAccount(account)
    undo.push(async () => a.unlinkAccount?.(account))
    await a.createAuthenticator(authenticatorFor(user.id))
    return { user, account }
  }

  const adapter = store(ctx.config, "webauthn")
  let result: { user: AdapterUser; account: AdapterAccount }
  if (typeof adapter.transaction === "function") {
    result = await adapter.transaction((tx: Adapter) => write(writerOf(tx), []))
  } else {
    const undo: Array<() => Promise<unknown>> = []
    try {
      result = await write(adapter, undo)
    } catch (error) {
      for (const step of undo.reverse()) await step().catch(() => undefined)
      throw error
    }
  }
  const account = result.account as Account
  if (!params.user) await ctx.config.events.createUser({ user: result.user })
  await ctx.config.events.linkAccount({ user: result.user, account, profile: result.user })
  // A signed-in user added a passkey (a new user's registration is a sign-up: its `signin` event says so).
  if (params.user)
    await recordAudit(sessionContext(ctx), { type: "passkey.added", userId: params.user.id, provider: provider.id })
  return { user: result.user, account }
}

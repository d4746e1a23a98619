/** Writing refreshed tokens back to the account row (compare-and-swap), and clearing them after `invalid_grant`. */
import type { AdapterAccount, AccountTokenPatch } from "../../../storage/adapter"
import type { OAuthUserStore, ResolvedConfig } from "../../kernel/config/types"
import { refreshErrorKey, tokenAtRest, type TokenRecord } from "../tokens"
import type { SessionContext } from "../types"
import type { Loaded } from "./load"

/** Writes the new tokens to the account row; `false` when the compare-and-swap found another refresh token. */
export async function persist(
  config: ResolvedConfig,
  loaded: Loaded,
  next: TokenRecord,
  idToken: unknown,
): Promise<boolean> {
  const { account, adapter } = loaded.db as NonNullable<Loaded["db"]>
  const encrypt = config.tokens.encryptAtRest
  const patch: AccountTokenPatch = {
    access_token: await tokenAtRest(config.secret, next.at as string, encrypt),
    refresh_token: await tokenAtRest(config.secret, next.rt as string, encrypt),
    expires_at: next.exp ?? null,
    ...(next.scope !== undefined ? { scope: next.scope } : {}),
    ...(next.tt !== undefined ? { token_type: next.tt } : {}),
    ...(typeof idToken === "string" ? { id_token: idToken } : {}),
  }
  const key = { provider: account.provider, providerAccountId: account.providerAccountId }
  if (adapter.updateAccountTokens) {
    const updated = await adapter.updateAccountTokens(key, patch, {
      expectedRefreshToken: account.refresh_token ?? null,
    })
    return updated !== null && updated !== undefined
  }
  return replaceAccount(adapter, account, patch)
}

/** The fallback for adapters without `updateAccountTokens`: unlink and link again, under the lock only. */
async function replaceAccount(adapter: OAuthUserStore, account: AdapterAccount, patch: AccountTokenPatch) {
  if (!adapter.unlinkAccount || !adapter.getAccount) return false
  const current = await adapter.getAccount(account.providerAccountId, account.provider)
  if (!current || (current.refresh_token ?? null) !== (account.refresh_token ?? null)) return false
  const next: Record<string, unknown> = { ...current }
  for (const [column, value] of Object.entries(patch)) {
    if (value === null) delete next[column]
    else if (value !== undefined) next[column] = value
  }
  await adapter.unlinkAccount({ provider: account.provider, providerAccountId: account.providerAccountId })
  await adapter.linkAccount(next as AdapterAccount)
  return true
}

/** `invalid_grant` on a database session: the access token cleared, the refresh token too unless it changed meanwhile. */
export async function clearAfterInvalidGrant(ctx: SessionContext, loaded: Loaded): Promise<void> {
  const { config } = ctx
  if (loaded.db) {
    const { account, adapter } = loaded.db
    const key = { provider: account.provider, providerAccountId: account.providerAccountId }
    const patch: AccountTokenPatch = { access_token: null, refresh_token: null, expires_at: 0 }
    if (adapter.updateAccountTokens) {
      const cleared = await adapter.updateAccountTokens(key, patch, {
        expectedRefreshToken: account.refresh_token ?? null,
      })
      // Rotated meanwhile: keep the new refresh token, clear only the access token.
      if (!cleared) await adapter.updateAccountTokens(key, { access_token: null, expires_at: 0 })
    } else {
      await replaceAccount(adapter, account, patch)
    }
  }
  if (loaded.userId && config.session.strategy === "database") {
    await config.store.setMax(refreshErrorKey(loaded.userId), Date.now(), config.session.maxAge)
  }
}

/** One refresh of one refresh token in this process: grace entry, cross-process lock, grant, publish. */
import { RefreshGrantError, refreshGrant } from "../../../oauth"
import type { ResolvedConfig } from "../../kernel/config/types"
import { accountPointerKey, seal, unseal, type TokenRecord } from "../tokens"
import type { SessionContext } from "../types"
import { recordOfAccount, type Loaded } from "./load"
import { clearAfterInvalidGrant, persist } from "./persist"

/** How long the cross-process lock lives, in seconds. */
export const REFRESH_LOCK_TTL = 15
/** How long the successor of a rotated refresh token is handed over to late requests, in seconds. */
export const REFRESH_GRACE_TTL = 60
/** How long a caller that found the lock taken waits for the holder's result, in ms. */
export const REFRESH_LOCK_WAIT = 5_000
/** How often it looks, in ms. */
export const REFRESH_POLL_INTERVAL = 100

const nowSeconds = () => Math.floor(Date.now() / 1000)
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function readGrace(config: ResolvedConfig, graceKey: string): Promise<TokenRecord | null> {
  const [sealed] = await config.store.get([graceKey])
  if (!sealed) return null
  const opened = await unseal(config.secret, "gatehouse.rt-grace", sealed)
  return opened ? (JSON.parse(opened) as TokenRecord) : null
}

/** The account row again, when another process has rotated it meanwhile (its refresh token differs from ours). */
async function rotatedElsewhere(config: ResolvedConfig, loaded: Loaded): Promise<TokenRecord | null> {
  const getAccount = loaded.db?.adapter.getAccount
  if (!loaded.db || !getAccount) return null
  const { account } = loaded.db
  const row = await getAccount(account.providerAccountId, account.provider)
  if (!row || (row.refresh_token ?? null) === (account.refresh_token ?? null)) return null
  const record = await recordOfAccount(config, row)
  return typeof record.at === "string" ? record : null
}

/** One refresh of one refresh token in this process: grace entry, lock, grant, compare-and-swap, publish. */
export async function flight(ctx: SessionContext, loaded: Loaded, key: string): Promise<TokenRecord> {
  const { config } = ctx
  const { provider, record } = loaded
  const graceKey = `rt-grace:${key}`
  const grace = await readGrace(config, graceKey)
  if (grace) return grace
  if (!(await config.store.consume(`rt-lock:${key}`, REFRESH_LOCK_TTL))) {
    for (let waited = 0; waited < REFRESH_LOCK_WAIT; waited += REFRESH_POLL_INTERVAL) {
      await delay(REFRESH_POLL_INTERVAL)
      const handedOver = (await readGrace(config, graceKey)) ?? (await rotatedElsewhere(config, loaded))
      if (handedOver) return handedOver
    }
    throw new RefreshGrantError("transient", "lock held elsewhere")
  }

  const startedAt = nowSeconds()
  let tokens
  try {
    tokens = await refreshGrant(provider, record.rt as string, { sub: record.sub, azp: record.azp }, record.dk)
  } catch (error) {
    if (error instanceof RefreshGrantError && error.reason !== "transient") {
      if (error.reason === "invalid_grant") {
        // A failed clean-up is logged; the caller still learns that the provider refused the token.
        await clearAfterInvalidGrant(ctx, loaded).catch((cleanup: unknown) => config.logger.error(cleanup as Error))
      }
      await config.events.refreshTokenError({
        provider: provider.id,
        ...(loaded.userId ? { userId: loaded.userId } : {}),
        reason: error.reason,
      })
    }
    throw error
  }
  const expiresIn = Number(tokens.expires_in)
  const next: TokenRecord = Object.fromEntries(
    Object.entries({
      at: tokens.access_token,
      rt: typeof tokens.refresh_token === "string" && tokens.refresh_token ? tokens.refresh_token : record.rt,
      exp: Number.isFinite(expiresIn) && expiresIn > 0 ? startedAt + expiresIn : undefined,
      scope: typeof tokens.scope === "string" ? tokens.scope : record.scope,
      tt: typeof tokens.token_type === "string" ? tokens.token_type.toLowerCase() : record.tt,
      sub: record.sub,
      azp: record.azp,
      dk: record.dk,
    }).filter(([, v]) => v !== undefined),
  ) as TokenRecord

  if (loaded.db) {
    const { account } = loaded.db
    const won = await persist(config, loaded, next, tokens.id_token)
    if (!won) {
      // Another writer swapped the row first: its tokens are the current ones; never refresh again.
      const winner = await rotatedElsewhere(config, loaded)
      if (winner) return winner
      throw new RefreshGrantError("transient", "account row changed")
    }
    // A session slides past the sign-in's maxAge: keep the pointer to the account alive while it refreshes.
    await config.store
      .set(accountPointerKey(provider.id, account.userId), account.providerAccountId, config.session.maxAge)
      .catch((error: unknown) => config.logger.error(error as Error))
  }
  try {
    await config.store.set(
      graceKey,
      await seal(config.secret, "gatehouse.rt-grace", JSON.stringify(next)),
      REFRESH_GRACE_TTL,
    )
  } catch (error) {
    config.logger.error(error as Error)
  }
  return next
}

/**
 * `getAccessToken()`: hand out a provider access token, refreshing it when it is due. One refresh token
 * is redeemed at most once: in-process single flight, a cross-process lock and a 60-second hand-over of the successor
 * through the key-value store, and a compare-and-swap write of the account row.
 */
import type { AdapterAccount, AccountTokenPatch } from "../../storage/adapter"
import { InvalidProvider, RefreshTokenError, type RefreshFailureReason } from "../../errors"
import {
  dpopAccess,
  RefreshGrantError,
  refreshGrant,
  subjectOfIdToken,
  type DPoPAccess,
  type ResolvedOAuthProvider,
} from "../../oauth"
import type { OAuthUserStore, ResolvedConfig } from "../kernel/config/types"
import { clearSessionCookie } from "../kernel/cookies/session-store"
import { idpOfToken } from "./idp"
import { writeJwtSession } from "./jwt"
import { currentPrincipal, forgetPrincipal } from "./principal"
import {
  accountPointerKey,
  dpopKeyFromRest,
  refreshErrorKey,
  seal,
  sha256,
  tokenAtRest,
  tokenFromRest,
  tokenProvidersOf,
  tokenRecordOf,
  unseal,
  withTokenRecord,
  type TokenRecord,
} from "./tokens"
import type { SessionContext } from "./types"
import type { JWT } from "../kernel/types"

/** How long the cross-process lock lives, in seconds. */
export const REFRESH_LOCK_TTL = 15
/** How long the successor of a rotated refresh token is handed over to late requests, in seconds. */
export const REFRESH_GRACE_TTL = 60
/** How long a caller that found the lock taken waits for the holder's result, in ms. */
export const REFRESH_LOCK_WAIT = 5_000
/** How often it looks, in ms. */
export const REFRESH_POLL_INTERVAL = 100
/** How long a refresh that failed transiently is not retried for the same refresh token, in ms. */
export const REFRESH_BACKOFF = 5_000

/**
 * What `getAccessToken()` resolves to. `expiresAt` is in seconds since the epoch. For a DPoP provider `tokenType` is
 * `"DPoP"` and `dpop` proves possession of the key the token is bound to (absent for other providers).
 */
export interface AccessTokenResult {
  accessToken: string
  expiresAt?: number
  scope?: string
  tokenType: string
  dpop?: DPoPAccess
}

/** Options of `getAccessToken()`. */
export interface GetAccessTokenOptions {
  /** Refresh even when the access token is not due yet. */
  force?: boolean
}

/** The per-runtime (per process and config) refresh state: in-flight refreshes and transient back-offs. */
export interface RefreshState {
  readonly inflight: Map<string, Promise<TokenRecord>>
  readonly backoff: Map<string, number>
}

/** The most back-off entries kept per runtime (expired ones are dropped first). */
const MAX_BACKOFF_ENTRIES = 10_000

/** A new, empty {@link RefreshState}. */
export function createRefreshState(): RefreshState {
  return { inflight: new Map(), backoff: new Map() }
}

const nowSeconds = () => Math.floor(Date.now() / 1000)
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Where the tokens were loaded from, and what writing them back needs. */
interface Loaded {
  provider: ResolvedOAuthProvider
  record: TokenRecord
  userId?: string
  db?: { account: AdapterAccount; adapter: OAuthUserStore }
  jwt?: { payload: JWT; present: string[] }
}

function refreshProviders(config: ResolvedConfig): ResolvedOAuthProvider[] {
  return config.providers.filter(
    (p): p is ResolvedOAuthProvider => (p.type === "oauth" || p.type === "oidc") && "refresh" in p && !!p.refresh,
  )
}

function refreshProvider(config: ResolvedConfig, id: string): ResolvedOAuthProvider {
  const provider = refreshProviders(config).find((p) => p.id === id)
  if (!provider) throw new InvalidProvider("The provider does not refresh tokens", { cause: { provider: id } })
  return provider
}

function fail(reason: RefreshFailureReason, provider: string, code?: string): RefreshTokenError {
  return new RefreshTokenError("The access token could not be refreshed", {
    cause: { reason, provider, ...(code ? { code } : {}) },
  })
}

async function answer(record: TokenRecord): Promise<AccessTokenResult> {
  return {
    accessToken: record.at as string,
    ...(record.exp !== undefined ? { expiresAt: record.exp } : {}),
    ...(record.scope !== undefined ? { scope: record.scope } : {}),
    tokenType: record.dk ? "DPoP" : (record.tt ?? "bearer"),
    ...(record.dk ? { dpop: await dpopAccess(record.dk, record.at as string) } : {}),
  }
}

/** An access token that has not expired (a due one still works until `exp`). */
function usable(record: TokenRecord): boolean {
  return typeof record.at === "string" && (record.exp === undefined || record.exp > nowSeconds())
}

async function recordOfAccount(config: ResolvedConfig, account: AdapterAccount): Promise<TokenRecord> {
  const [at, rt, dk] = await Promise.all([
    tokenFromRest(config.secret, account.access_token),
    tokenFromRest(config.secret, account.refresh_token),
    dpopKeyFromRest(config.secret, account.dpop_key),
  ])
  const subject = subjectOfIdToken(account.id_token)
  const record: TokenRecord = {
    at,
    rt,
    exp: typeof account.expires_at === "number" ? account.expires_at : undefined,
    scope: account.scope ?? undefined,
    tt: account.token_type ?? undefined,
    ...subject,
    ...(dk ? { dk } : {}),
  }
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined && v !== null)) as TokenRecord
}

async function loadJwt(ctx: SessionContext, providerId: string | undefined): Promise<Loaded | null> {
  const door = await currentPrincipal(ctx)
  if (!door.ok || door.principal.strategy !== "jwt") return null
  const payload = door.principal.token
  const stored = door.cookie
  const id = providerId ?? idpOfToken(payload)?.p ?? tokenProvidersOf(payload)[0] ?? refreshProviders(ctx.config)[0]?.id
  if (id === undefined) throw new InvalidProvider("No provider refreshes tokens")
  const provider = refreshProvider(ctx.config, id)
  return {
    provider,
    record: tokenRecordOf(payload, provider.id) ?? {},
    userId: typeof payload.sub === "string" ? payload.sub : undefined,
    jwt: { payload, present: stored.present },
  }
}

async function loadDatabase(ctx: SessionContext, providerId: string | undefined): Promise<Loaded | null> {
  const { config } = ctx
  const door = await currentPrincipal(ctx)
  if (!door.ok || door.principal.strategy !== "database") return null
  const { userId } = door.principal
  const candidates = providerId === undefined ? refreshProviders(config) : [refreshProvider(config, providerId)]
  if (candidates.length === 0) throw new InvalidProvider("No provider refreshes tokens")
  const adapter = config.stores.oauth
  const pointers = await config.store.get(candidates.map((p) => accountPointerKey(p.id, userId)))
  const index = pointers.findIndex((v) => v !== null)
  const provider = candidates[Math.max(index, 0)]
  const account =
    index >= 0 && adapter?.getAccount ? await adapter.getAccount(pointers[index] as string, provider.id) : null
  if (!adapter || !account || account.userId !== userId) return { provider, record: {}, userId }
  return { provider, record: await recordOfAccount(config, account), userId, db: { account, adapter } }
}

/**
 * The access token of the request's session for `providerId` (default: the session's provider), refreshed when it
 * expires within the provider's `refresh.window` (or with `force`). `null` without a session.
 *
 * @throws RefreshTokenError with `cause.reason` (see the class); InvalidProvider for a provider without `refresh`.
 * @example
 * ```ts
 * const token = await getAccessToken(ctx, runtime.refresh, "corp")
 * await fetch(api, { headers: { Authorization: `Bearer ${token?.accessToken}` } })
 * ```
 */
export async function getAccessToken(
  ctx: SessionContext,
  state: RefreshState,
  providerId?: string,
  options: GetAccessTokenOptions = {},
): Promise<AccessTokenResult | null> {
  const { config } = ctx
  const loaded =
    config.session.strategy === "jwt" ? await loadJwt(ctx, providerId) : await loadDatabase(ctx, providerId)
  if (!loaded) return null
  const { provider, record } = loaded
  if (loaded.db?.account.dpop_key && !record.dk) {
    // The key the tokens are bound to cannot be read (another secret, a damaged row): they are useless, so cleared.
    await clearAfterInvalidGrant(ctx, loaded).catch((error: unknown) => config.logger.error(error as Error))
    throw fail("no_refresh_token", provider.id, "dpop_key_unreadable")
  }
  const window = provider.refresh?.window ?? 60
  if (
    !options.force &&
    typeof record.at === "string" &&
    (record.exp === undefined || record.exp - nowSeconds() > window)
  ) {
    return answer(record)
  }
  if (!record.rt) {
    if (!options.force && usable(record)) return answer(record)
    throw fail("no_refresh_token", provider.id)
  }
  const key = `${provider.id}:${sha256(record.rt)}`
  const backoffUntil = state.backoff.get(key)
  if (backoffUntil !== undefined) {
    if (backoffUntil > Date.now()) {
      if (usable(record)) return answer(record)
      throw fail("transient", provider.id)
    }
    state.backoff.delete(key)
  }
  let pending = state.inflight.get(key)
  if (!pending) {
    pending = flight(ctx, loaded, key).finally(() => state.inflight.delete(key))
    state.inflight.set(key, pending)
  }
  let next: TokenRecord
  try {
    next = await pending
  } catch (error) {
    const reason = error instanceof RefreshGrantError ? error.reason : "transient"
    const code = error instanceof RefreshGrantError ? error.code : undefined
    if (!(error instanceof RefreshGrantError)) config.logger.error(error as Error)
    if (reason === "transient") {
      if (state.backoff.size >= MAX_BACKOFF_ENTRIES) {
        for (const [k, until] of state.backoff) if (until <= Date.now()) state.backoff.delete(k)
        if (state.backoff.size >= MAX_BACKOFF_ENTRIES) state.backoff.clear()
      }
      state.backoff.set(key, Date.now() + REFRESH_BACKOFF)
      if (usable(record)) return answer(record)
    } else if (reason === "invalid_grant" && loaded.jwt) {
      // The tokens are dropped from the cookie and the session carries the error until the next sign-in.
      await writeJwtSession(ctx, withTokenRecord(loaded.jwt.payload, provider.id, undefined, true), loaded.jwt.present)
    } else if (reason === "id_token_mismatch") {
      // Another subject at the provider: this session ends; the stored tokens stay as they were.
      const door = await currentPrincipal(ctx)
      if (door.ok && door.principal.strategy === "database" && config.stores.sessions) {
        await config.stores.sessions.deleteSession(door.principal.session.sessionToken)
      }
      clearSessionCookie(ctx.jar, door.cookie.present, ctx.cookies.sessionToken.options)
      forgetPrincipal(ctx)
    }
    throw fail(reason, provider.id, code)
  }
  if (loaded.jwt) {
    await writeJwtSession(ctx, withTokenRecord(loaded.jwt.payload, provider.id, next), loaded.jwt.present)
  }
  return answer(next)
}

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
async function flight(ctx: SessionContext, loaded: Loaded, key: string): Promise<TokenRecord> {
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

/** Writes the new tokens to the account row; `false` when the compare-and-swap found another refresh token. */
async function persist(config: ResolvedConfig, loaded: Loaded, next: TokenRecord, idToken: unknown): Promise<boolean> {
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
async function clearAfterInvalidGrant(ctx: SessionContext, loaded: Loaded): Promise<void> {
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

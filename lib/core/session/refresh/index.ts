/**
 * `getAccessToken()`: hand out a provider access token, refreshing it when it is due. One refresh token is redeemed
 * at most once: in-process single flight (here), a cross-process lock and a 60-second hand-over of the successor
 * through the key-value store (`flight.ts`), and a compare-and-swap write of the account row (`persist.ts`); the
 * tokens of the request's session are loaded through the one door (`load.ts`).
 */
import { RefreshTokenError, type RefreshFailureReason } from "../../../errors"
import { dpopAccess, RefreshGrantError, type DPoPAccess } from "../../../oauth"
import { clearSessionCookie } from "../../kernel/cookies/session-store"
import { writeJwtSession } from "../jwt"
import { currentPrincipal, forgetPrincipal } from "../principal"
import { sha256, withTokenRecord, type TokenRecord } from "../tokens"
import type { SessionContext } from "../types"
import { flight } from "./flight"
import { loadDatabase, loadJwt } from "./load"
import { clearAfterInvalidGrant } from "./persist"

const nowSeconds = () => Math.floor(Date.now() / 1000)

export { REFRESH_GRACE_TTL, REFRESH_LOCK_TTL, REFRESH_LOCK_WAIT, REFRESH_POLL_INTERVAL } from "./flight"

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

/** The caller's error: the reason, a finer code when there is one, and the provider's coded failure as `err`. */
function fail(reason: RefreshFailureReason, provider: string, code?: string, err?: Error): RefreshTokenError {
  return new RefreshTokenError("The access token could not be refreshed", {
    cause: { reason, provider, ...(code ? { code } : {}), ...(err ? { err } : {}) },
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
    throw fail(
      reason,
      provider.id,
      code,
      error instanceof RefreshGrantError ? (error.cause as Error | undefined) : undefined,
    )
  }
  if (loaded.jwt) {
    await writeJwtSession(ctx, withTokenRecord(loaded.jwt.payload, provider.id, next), loaded.jwt.present)
  }
  return answer(next)
}

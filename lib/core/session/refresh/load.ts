/** Loading the token set of the request's session (through the one door), by strategy, for `getAccessToken`. */
import type { AdapterAccount } from "../../../storage/adapter"
import { InvalidProvider } from "../../../errors"
import { subjectOfIdToken, type ResolvedOAuthProvider } from "../../../oauth"
import type { OAuthUserStore, ResolvedConfig } from "../../kernel/config/types"
import { idpOfToken } from "../idp"
import { currentPrincipal } from "../principal"
import {
  accountPointerKey,
  dpopKeyFromRest,
  tokenFromRest,
  tokenProvidersOf,
  tokenRecordOf,
  type TokenRecord,
} from "../tokens"
import type { SessionContext } from "../types"
import type { JWT } from "../../kernel/types"

/** Where the tokens were loaded from, and what writing them back needs. */
export interface Loaded {
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

export async function recordOfAccount(config: ResolvedConfig, account: AdapterAccount): Promise<TokenRecord> {
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

export async function loadJwt(ctx: SessionContext, providerId: string | undefined): Promise<Loaded | null> {
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

export async function loadDatabase(ctx: SessionContext, providerId: string | undefined): Promise<Loaded | null> {
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

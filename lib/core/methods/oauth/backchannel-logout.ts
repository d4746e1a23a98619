/**
 * POST /backchannel-logout/:provider — the Back-Channel Logout 1.0 receiver. CSRF-exempt, reads no
 * cookies, answers JSON or nothing with `Cache-Control: no-store`: 200 when the token verified (whether or not a
 * session matched), 400 `invalid_request` for a bad request or token, 400 `application_error` when ending the sessions
 * failed.
 */
import type { AdapterSession } from "../../../storage/adapter"
import {
  engineError,
  LogoutTokenError,
  verifyLogoutToken,
  type LogoutClaims,
  type ResolvedOAuthProvider,
} from "../../../oauth"
import { need, store } from "../../kernel/config/stores"
import type { RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import { jtiKey, sidMarkerKey, subWatermarkKey } from "../../session/idp"

/** Largest `logout_token` accepted, in characters. */
const MAX_LOGOUT_TOKEN = 8 * 1024
const noStore = { "Cache-Control": "no-store" }

function invalid(description: string): AuthResult {
  return {
    status: 400,
    headers: { ...noStore, "Content-Type": "application/json" },
    body: { error: "invalid_request", error_description: description },
  }
}

const applicationError: AuthResult = {
  status: 400,
  headers: { ...noStore, "Content-Type": "application/json" },
  body: { error: "application_error" },
}

function logoutProvider(ctx: RequestContext): ResolvedOAuthProvider | undefined {
  const id = ctx.request.providerId
  const provider = id === undefined ? undefined : ctx.config.providerById.get(id)
  if (provider?.type !== "oidc" || !provider.logout?.backchannel) return undefined
  return provider
}

/** The single `logout_token` of a form body, or the reason it cannot be read. */
function logoutTokenOf(ctx: RequestContext): string | AuthResult {
  const { request } = ctx
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase()
  if (type !== "application/x-www-form-urlencoded") return invalid("the body must be application/x-www-form-urlencoded")
  if (request.rawBody === null || request.rawBody === undefined) return invalid("the body is too large")
  const tokens = new URLSearchParams(request.rawBody).getAll("logout_token")
  if (tokens.length !== 1) return invalid("exactly one logout_token is required")
  const [token] = tokens as [string]
  if (!token || token.length > MAX_LOGOUT_TOKEN) return invalid("invalid logout_token")
  return token
}

/**
 * Handles the back-channel logout request.
 *
 * @example
 * ```ts
 * const result = await backchannelLogoutAction(ctx) // { status: 200, headers: { "Cache-Control": "no-store" } }
 * ```
 */
export async function backchannelLogoutAction(ctx: RequestContext): Promise<AuthResult> {
  const token = logoutTokenOf(ctx)
  if (typeof token !== "string") return token
  const provider = logoutProvider(ctx)
  if (!provider) return invalid("unknown provider or back-channel logout not enabled")
  let claims: LogoutClaims
  try {
    claims = await verifyLogoutToken(provider, token)
  } catch (error) {
    if (error instanceof LogoutTokenError) {
      const code = ((error.cause as { cause?: { code?: unknown } } | undefined)?.cause?.code as string) ?? undefined
      ctx.logger.debug("back-channel logout token refused", {
        provider: provider.id,
        reason: error.message,
        ...(code ? { code } : {}),
      })
      return invalid(error.message)
    }
    // The provider's metadata or keys could not be had: one coded error, the library's code in `cause.code`.
    ctx.logger.error(engineError(provider, error))
    return applicationError
  }
  try {
    const now = Math.floor(Date.now() / 1000)
    const fresh = await ctx.config.store.consume(jtiKey(provider.id, claims.jti), Math.max(60, claims.exp - now + 60))
    if (!fresh) return invalid("replayed")
    await endSessions(ctx, provider, claims)
  } catch (error) {
    ctx.logger.error(error as Error)
    return applicationError
  }
  return { status: 200, headers: noStore }
}

/** Ends what the token names: database rows by `sid`/`sub`, and store markers that JWT session reads check. */
async function endSessions(ctx: RequestContext, provider: ResolvedOAuthProvider, claims: LogoutClaims): Promise<void> {
  const { config } = ctx
  const { sid, sub, iat } = claims
  const ttl = config.session.maxAge
  if (sid !== undefined) await config.store.set(sidMarkerKey(provider.id, sid), String(iat), ttl)
  else if (sub !== undefined) await config.store.setMax(subWatermarkKey(provider.id, sub), iat, ttl)

  const deleted: AdapterSession[] = []
  if (config.session.strategy === "database") {
    const adapter = store(config, "logout")
    const filter = sid !== undefined ? { idpSid: sid, ...(sub ? { idpSub: sub } : {}) } : { idpSub: sub }
    const deleteSessionsByIdp = need(adapter.deleteSessionsByIdp, "deleteSessionsByIdp")
    deleted.push(...(await deleteSessionsByIdp({ provider: provider.id, ...filter })))
    if (provider.logout?.legacyUserWide && sub && adapter.getUserByAccount && adapter.deleteSessions) {
      const user = await adapter.getUserByAccount({ provider: provider.id, providerAccountId: sub })
      if (user) await adapter.deleteSessions({ userId: user.id })
    }
  }
  for (const session of deleted) await config.events.signOut({ session, reason: "backchannel" })
  await config.events.backchannelLogout({ provider: provider.id, sid, sub, count: deleted.length })
}

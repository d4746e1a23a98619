/**
 * The explicit link flow (accounts.md §2.3): a signed-in user starts the provider's authorization like a sign-in,
 * with a sealed link cookie naming them; the callback attaches the provider account to that user only (never by
 * email), issues no session, and sends them back with `linked=<provider>` or `error=<Type>`.
 */
import { createHash } from "node:crypto"
import { InvalidProvider } from "../../../errors"
import { decode, encode } from "../../../jwt"
import { startOAuthSignIn, type ResolvedOAuthProvider } from "../../../oauth"
import type { AdapterAccount } from "../../../storage/adapter"
import { recordAudit } from "../../kernel/audit"
import { limitIdentifierOf } from "../../kernel/rate-limit/by-user"
import type { RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import type { Account } from "../../kernel/types"
import { claimsOf } from "../../session/claims"
import { principalForChange } from "../../session/for-change"
import { sessionContext } from "../../session/context"
import { publicSessionId } from "../../session/manage"
import { currentPrincipal } from "../../session/principal"
import { subjectForChange } from "../../session/subject"
import type { Principal } from "../../session/types"
import { oauthFlowContext } from "./flow-context"
import { storedAccount } from "./link-account"

const PURPOSE = "gatehouse.link"
const MAX_AGE = 900

/** The link cookie's name: `gatehouse.link`, `__Secure-` on https. */
const linkCookieName = (secure: boolean): string => (secure ? `__Secure-${PURPOSE}` : PURPOSE)

interface LinkClaims {
  userId: string
  sessionId: string
  provider: string
  redirectTo: string
  /** SHA-256 of the check cookies (state, PKCE, nonce) issued with it: honoured only together with them. */
  binding: string
  iat: number
}

/** The session id a link is tied to: the public id of a database session, the session epoch of a JWT. */
function sessionIdOf(principal: Principal): string {
  if (principal.strategy === "database") return publicSessionId(principal.session.sessionToken)
  const epoch = claimsOf(principal.token)?.se
  return epoch === undefined ? "" : String(epoch)
}

function bindingOf(ctx: RequestContext, values: (name: string) => string | undefined): string {
  const names = [ctx.cookies.state.name, ctx.cookies.pkceCodeVerifier.name, ctx.cookies.nonce.name]
  return createHash("sha256")
    .update(names.map((name) => values(name) ?? "").join("\u0000"))
    .digest("base64url")
}

/**
 * Starts linking `providerId` to the session user (fresh session, not impersonating): the authorization URL, with
 * the check cookies and the link cookie set on the request's jar.
 *
 * @example
 * ```ts
 * const url = await startLink(ctx, "github", "/settings")
 * ```
 */
export async function startLink(ctx: RequestContext, providerId: unknown, redirectTo: string): Promise<string> {
  const provider = typeof providerId === "string" ? ctx.config.providerById.get(providerId) : undefined
  if (!provider || (provider.type !== "oauth" && provider.type !== "oidc")) {
    throw new InvalidProvider("Not an OAuth or OpenID Connect provider", { status: 400 })
  }
  const subject = await subjectForChange(sessionContext(ctx))
  await limitIdentifierOf(ctx.config, "account-link", subject.userId)
  const oauth = provider as ResolvedOAuthProvider
  const url = await startOAuthSignIn(oauthFlowContext(ctx, oauth))
  const set = new Map(ctx.jar.list().map((cookie) => [cookie.name, cookie.value]))
  const claims: LinkClaims = {
    userId: subject.userId,
    sessionId: sessionIdOf(subject.principal),
    provider: provider.id,
    redirectTo,
    binding: bindingOf(ctx, (name) => set.get(name)),
    iat: Math.floor(Date.now() / 1000),
  }
  const sealed = await encode({ token: { ...claims }, secret: ctx.config.secret, salt: PURPOSE, maxAge: MAX_AGE })
  ctx.jar.set(linkCookieName(ctx.secure), sealed, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: ctx.secure,
    maxAge: MAX_AGE,
  })
  return url
}

function withQuery(url: string, key: string, value: string): string {
  const hashAt = url.indexOf("#")
  const [base, hash] = hashAt === -1 ? [url, ""] : [url.slice(0, hashAt), url.slice(hashAt)]
  return `${base}${base.includes("?") ? "&" : "?"}${key}=${encodeURIComponent(value)}${hash}`
}

/**
 * At the callback, after the code exchange: when the request carries a link cookie for this provider (issued with
 * this request's check cookies), links the account to the user it names, or refuses; the cookie is cleared. Without
 * one (or with one for another provider, left in place) it answers `undefined`: a normal sign-in.
 *
 * @example
 * ```ts
 * const linked = await finishLink(ctx, provider, account)
 * if (linked) return linked
 * ```
 */
export async function finishLink(
  ctx: RequestContext,
  provider: ResolvedOAuthProvider,
  account: Account,
): Promise<AuthResult | undefined> {
  const name = linkCookieName(ctx.secure)
  const raw = ctx.request.cookies[name]
  if (!raw) return undefined
  let claims: LinkClaims | null = null
  try {
    claims = (await decode({ token: raw, secret: ctx.config.secret, salt: PURPOSE })) as unknown as LinkClaims | null
  } catch {
    claims = null
  }
  if (claims && claims.provider !== provider.id) return undefined
  ctx.jar.delete(name, { httpOnly: true, sameSite: "lax", path: "/", secure: ctx.secure })
  if (!claims || claims.binding !== bindingOf(ctx, (cookie) => ctx.request.cookies[cookie])) return undefined
  const target = await ctx.config.callbacks.redirect({ url: claims.redirectTo, baseUrl: ctx.origin })
  const sctx = sessionContext(ctx)
  const door = await currentPrincipal(sctx)
  const fail = async (type: "SessionRequired" | "AccountAlreadyLinked"): Promise<AuthResult> => {
    await recordAudit(sctx, {
      type: "account.linked",
      userId: claims!.userId,
      provider: provider.id,
      outcome: "failure",
      reason: type,
    })
    return { redirect: withQuery(target, "error", type) }
  }
  if (!door.ok || door.principal.userId !== claims.userId || sessionIdOf(door.principal) !== claims.sessionId) {
    return fail("SessionRequired")
  }
  const adapter = ctx.config.stores.oauth!
  const key = { provider: account.provider, providerAccountId: account.providerAccountId }
  const owner = await adapter.getUserByAccount(key)
  if (owner && owner.id === claims.userId) return { redirect: withQuery(target, "linked", provider.id) }
  if (owner) return fail("AccountAlreadyLinked")
  // The session is the one that started the link (through `subjectForChange`); a link is a change all the same.
  await principalForChange(sctx)
  const user = await adapter.getUser(claims.userId)
  if (!user) return fail("SessionRequired")
  const stored: AdapterAccount = storedAccount(provider, account, user.id)
  await adapter.linkAccount(stored)
  await ctx.config.events.linkAccount({ user, account: stored as Account, profile: user })
  await recordAudit(sctx, { type: "account.linked", userId: user.id, provider: provider.id })
  return { redirect: withQuery(target, "linked", provider.id) }
}

/** The one way a session is issued, used by every sign-in flow (credentials, OAuth, email, WebAuthn) and impersonation. */
import { InvalidConfig } from "../../errors"
import { storedClientIp } from "../kernel/rate-limit/ip"
import type { AdapterUser } from "../../storage/adapter"
import { clearSessionCookie } from "../kernel/cookies/session-store"
import { readSessionCookie } from "../../cookie-header"
import type { Account, JWT, Profile, TwoFactorUsed, User } from "../kernel/types"
import { writeDatabaseSessionCookie, sessionStore } from "./database"
import { writeJwtSession } from "./jwt"
import type { SessionContext } from "./types"
import type { IdpRecord } from "../../oauth"
import { deleteSessionByCookie, hashSessionToken } from "./token"
import { withSignInClaims } from "./claims"
import { withTokenRecord, type TokenRecord } from "./tokens"

export interface IssueSessionParams {
  /** The signed-in user; with database sessions it must exist in the adapter. */
  user: User | AdapterUser
  account: Account | null
  profile?: Profile
  isNewUser?: boolean
  trigger: "signIn" | "signUp"
  /** OIDC sign-ins of a provider with `logout` settings: what logout needs to find this session again. */
  idp?: IdpRecord
  /** JWT sessions of a provider with `refresh`: the provider tokens kept in `__gh.tok`. */
  tokens?: { provider: string; record: TokenRecord }
  /** The second factor this sign-in passed (for `events.signIn`). */
  twoFactor?: TwoFactorUsed
  /**
   * An impersonation session (accounts.md §3.5): marked with the admin's id, ending `maxAge` seconds from now at the
   * latest and never sliding; the request's own session is kept, and no `signIn` event fires.
   */
  impersonation?: { by: string; maxAge: number }
}

/**
 * Issues a fresh session for `user` and fires the `signIn` event. JWT strategy: the `jwt` callback shapes the token
 * (returning null issues none and clears the cookie). Database strategy: a new session row with a new token (stored
 * as its hash), and the session the request carried (if any) is deleted — a new token on every sign-in (no fixation).
 *
 * @example
 * ```ts
 * await issueSession(ctx, { user, account, trigger: "signIn" })
 * ```
 */
/** The `ip` column of a new session under `session.storeIp`: nothing when the request has no usable address. */
function ipColumn(raw: string | null | undefined, mode: true | "truncate"): { ip?: string } {
  const ip = storedClientIp(raw, mode)
  return ip ? { ip } : {}
}

export async function issueSession(ctx: SessionContext, params: IssueSessionParams): Promise<boolean> {
  const { config, cookies } = ctx
  const { user, account, profile, isNewUser, trigger, idp, tokens, twoFactor, impersonation } = params
  const stored = readSessionCookie(ctx.requestCookies, cookies.sessionToken.name)

  if (config.session.strategy === "jwt") {
    const defaultToken: JWT = {
      name: user.name,
      email: user.email,
      picture: user.image,
      sub: user.id === undefined || user.id === null ? undefined : String(user.id),
    }
    const token = await config.callbacks.jwt({
      token: defaultToken,
      user,
      account,
      ...(profile ? { profile } : {}),
      isNewUser: isNewUser ?? false,
      trigger,
    })
    if (token === null || token === undefined) {
      clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
      return false
    } else {
      const signedIn = withSignInClaims(token)
      if (impersonation) {
        const until = Math.floor(Date.now() / 1000) + Math.min(impersonation.maxAge, config.session.maxAge)
        signedIn.__gh = { ...(signedIn.__gh as object), imp: impersonation.by, ie: until }
      }
      // OIDC sign-ins keep what logout needs in the reserved claim, unless the callback dropped it.
      if (idp && token.__gh !== null) signedIn.__gh = { ...(signedIn.__gh as object), idp }
      const withTokens =
        tokens && token.__gh !== null ? withTokenRecord(signedIn, tokens.provider, tokens.record, false) : signedIn
      await writeJwtSession(ctx, withTokens, stored.present)
    }
  } else {
    const adapter = sessionStore(config)
    // An impersonation keeps the admin's own session row: stopping it restores that session.
    if (stored.value && !impersonation) await deleteSessionByCookie(adapter, stored.value)
    clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
    // The cookie carries the token; the row only its hash, so a leaked table holds nothing a browser can present.
    const token = config.session.generateSessionToken()
    const now = new Date()
    // The management columns go only to adapters with session management (an Auth.js adapter may reject them).
    const managed = typeof config.stores.management?.listSessionsByUserId === "function"
    const lifetime = impersonation ? Math.min(impersonation.maxAge, config.session.maxAge) : config.session.maxAge
    const session = await adapter.createSession({
      sessionToken: hashSessionToken(token),
      userId: String(user.id),
      expires: new Date(now.valueOf() + lifetime * 1000),
      ...(impersonation ? { impersonatedBy: impersonation.by } : {}),
      ...(managed ? { createdAt: now, lastActiveAt: now } : {}),
      ...(managed && ctx.userAgent ? { userAgent: ctx.userAgent.slice(0, 256) } : {}),
      ...(managed && config.session.storeIp ? ipColumn(ctx.clientIp?.(), config.session.storeIp) : {}),
      ...(idp ? { provider: idp.p, idpSid: idp.sid ?? null, idpSub: idp.sub, authTime: idp.at } : {}),
    })
    if (impersonation && session.impersonatedBy !== impersonation.by) {
      // An adapter that does not keep the column would have made a full session of the target: undone, refused.
      await adapter.deleteSession(session.sessionToken)
      throw new InvalidConfig("Impersonation with database sessions needs an adapter that stores `impersonatedBy`", {
        cause: { option: "admin" },
      })
    }
    writeDatabaseSessionCookie(ctx, token, session.expires)
  }

  if (impersonation) return true
  await config.events.signIn({
    user,
    account,
    ...(profile ? { profile } : {}),
    ...(isNewUser === undefined ? {} : { isNewUser }),
    ...(twoFactor ? { twoFactor } : {}),
  })
  return true
}

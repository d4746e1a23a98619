/** The one way a session is issued, used by every sign-in flow (credentials, OAuth, email, WebAuthn). */
import type { AdapterUser, SessionAdapter } from "../../adapters/types"
import { readSessionCookie, clearSessionCookie } from "../cookies/session-store"
import type { Account, JWT, Profile, User } from "../types"
import { writeDatabaseSessionCookie } from "./database"
import { writeJwtSession } from "./jwt"
import type { SessionContext } from "./types"

export interface IssueSessionParams {
  /** The signed-in user; with database sessions it must exist in the adapter. */
  user: User | AdapterUser
  account: Account | null
  profile?: Profile
  isNewUser?: boolean
  trigger: "signIn" | "signUp"
}

/**
 * Issues a fresh session for `user` and fires the `signIn` event. JWT strategy: the `jwt` callback shapes the token
 * (returning null issues none and clears the cookie). Database strategy: a new session row with a new token, and the
 * session the request carried (if any) is deleted — a new token on every sign-in (no fixation).
 *
 * @example
 * ```ts
 * await issueSession(ctx, { user, account, trigger: "signIn" })
 * ```
 */
export async function issueSession(ctx: SessionContext, params: IssueSessionParams): Promise<void> {
  const { config, cookies } = ctx
  const { user, account, profile, isNewUser, trigger } = params
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
    if (token === null || token === undefined) clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
    else await writeJwtSession(ctx, token, stored.present)
  } else {
    const adapter = config.adapter as SessionAdapter
    if (stored.value) await adapter.deleteSession(stored.value)
    clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
    const session = await adapter.createSession({
      sessionToken: config.session.generateSessionToken(),
      userId: String(user.id),
      expires: new Date(Date.now() + config.session.maxAge * 1000),
    })
    writeDatabaseSessionCookie(ctx, session.sessionToken, session.expires)
  }

  await config.events.signIn({
    user,
    account,
    ...(profile ? { profile } : {}),
    ...(isNewUser === undefined ? {} : { isNewUser }),
  })
}

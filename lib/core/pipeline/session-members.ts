/**
 * The passkey, session-management, provider-token, access-token and rate-limit members of the Gatehouse object: each
 * request-taking one runs on the port's session context; the server-only ones on the server config.
 */
import type { AdapterUser } from "../../storage/adapter"
import type { ResolvedConfig } from "../kernel/config/types"
import { resetAccountLimits } from "../kernel/rate-limit/enforce"
import { deletePasskey, listPasskeys, renamePasskey, type PasskeyInfo } from "../methods/webauthn/manage"
import {
  deleteUser,
  isSessionFresh,
  listSessions,
  revokeAllSessions,
  revokeOtherSessions,
  revokeSession,
  revokeUserSessions,
  type SessionInfo,
} from "../session/manage"
import { getAccessToken, type AccessTokenResult, type GetAccessTokenOptions } from "../session/refresh"
import type { SessionContext } from "../session/types"
import type { ConfigRuntime } from "./runtime"
import { issueForRequest, rotateForConfig, type AccessTokenRequest, type IssuedAccessToken } from "./token-members"

export type { AccessTokenResult, GetAccessTokenOptions, PasskeyInfo, SessionInfo }

/** The members as the core offers them (the request-taking ones first take the port). */
export interface SessionMembers<Port> {
  listAuthenticators(port: Port): Promise<PasskeyInfo[] | null>
  renameAuthenticator(port: Port, id: string, name: string): Promise<PasskeyInfo>
  deleteAuthenticator(port: Port, id: string): Promise<void>
  listSessions(port: Port): Promise<SessionInfo[] | null>
  revokeSession(port: Port, id: string): Promise<boolean>
  revokeOtherSessions(port: Port): Promise<boolean>
  revokeAllSessions(port: Port): Promise<boolean>
  isSessionFresh(port: Port): Promise<boolean>
  getAccessToken(port: Port, provider?: string, options?: GetAccessTokenOptions): Promise<AccessTokenResult | null>
  revokeUserSessions(userId: string): Promise<number>
  deleteUser(userId: string): Promise<AdapterUser | null>
  resetRateLimit(options: { identifier: string }): Promise<void>
  /** tokens.md T3.2: an access token for the request's user, or `null` without a session. */
  issueAccessToken(port: Port, input?: AccessTokenRequest): Promise<IssuedAccessToken | null>
  /** tokens.md T3.4: rotates the generated access-token keys now. */
  rotateAccessTokenKeys(): Promise<{ kid: string; previousKid: string | null }>
}

/** What the members need of the Gatehouse object. */
export interface SessionMemberHelpers<Port> {
  /** Runs `fn` on the port's session context; the cookies it set go out through the port, even when it throws. */
  withSession<T>(port: Port, fn: (ctx: SessionContext, rt: ConfigRuntime) => Promise<T>): Promise<T>
  /** The config of server-only calls (no request). */
  serverConfig(): Promise<ResolvedConfig>
  /** The request's own origin (the issuer of an access token without `AUTH_URL`). */
  originOf(port: Port): string
}

/**
 * Builds the members on the Gatehouse object's helpers.
 *
 * @example
 * ```ts
 * const members = sessionMembers({ withSession, serverConfig, originOf: (port) => port.origin() })
 * ```
 */
export function sessionMembers<Port>(h: SessionMemberHelpers<Port>): SessionMembers<Port> {
  const { withSession, serverConfig } = h
  return {
    listAuthenticators: (port) => withSession(port, (ctx) => listPasskeys(ctx)),
    renameAuthenticator: (port, id, name) => withSession(port, (ctx) => renamePasskey(ctx, id, name)),
    deleteAuthenticator: (port, id) => withSession(port, (ctx) => deletePasskey(ctx, id)),
    listSessions: (port) => withSession(port, (ctx) => listSessions(ctx)),
    revokeSession: (port, id) => withSession(port, async (ctx) => (await revokeSession(ctx, String(id))) === "revoked"),
    revokeOtherSessions: (port) => withSession(port, async (ctx) => (await revokeOtherSessions(ctx)) === "revoked"),
    revokeAllSessions: (port) => withSession(port, async (ctx) => (await revokeAllSessions(ctx)) === "revoked"),
    isSessionFresh: (port) => withSession(port, (ctx) => isSessionFresh(ctx)),
    getAccessToken: (port, provider, options) =>
      withSession(port, (ctx, rt) => getAccessToken(ctx, rt.refresh, provider, options)),
    revokeUserSessions: async (userId) => revokeUserSessions(await serverConfig(), userId),
    deleteUser: async (userId) => deleteUser(await serverConfig(), userId),
    resetRateLimit: async ({ identifier }) => resetAccountLimits(await serverConfig(), identifier),
    issueAccessToken: (port, input) =>
      withSession(port, (ctx) => issueForRequest(ctx, ctx.config.authUrl?.origin ?? h.originOf(port), input)),
    rotateAccessTokenKeys: async () => rotateForConfig(await serverConfig()),
  }
}

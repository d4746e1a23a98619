/**
 * The account, administration and audit members of the Gatehouse object (accounts.md §2.1, §3.2, §4): each takes the
 * request's port (except the server-only ones) and runs on its session context. Mutating members run the origin
 * guard of next-wave A.3 rule 2 first (`{ csrf: false }` opts out per call). The edges map them by name.
 */
import { parseCookieHeader } from "../../cookie-header"
import { MissingCSRF } from "../../errors"
import type { ResolvedConfig } from "../kernel/config/types"
import { requestOrigin } from "../kernel/context"
import { originGuardPasses } from "../kernel/origin-guard"
import { pruneAuditEvents } from "../kernel/audit"
import type { MyAuditEvent } from "../kernel/audit"
import { listMyAuditEvents } from "../methods/account/activity"
import { deleteAccount } from "../methods/account/delete"
import { changeEmail } from "../methods/account/email-change"
import { listAccounts, type AccountOverview } from "../methods/account/overview"
import { unlinkAccount } from "../methods/account/unlink"
import type { SessionContext } from "../session/types"
import { listAuditEvents } from "../methods/account/admin-audit"
import { impersonate, stopImpersonating } from "../methods/account/admin-impersonate"
import type { Session } from "../kernel/types"
import {
  adminRevokeSessions,
  banUser,
  getUserDetail,
  listUsers,
  setRole,
  unbanUser,
  type UserDetail,
  type UserSummary,
} from "../methods/account/admin-users"
import type { AuditEvent } from "../kernel/audit"
import type { ConfigRuntime } from "./runtime"
import { invokeAction } from "./invoke"
import { throwIfFailed, type ServerCallRequest } from "./server-calls"

/** What a port must tell the members (a subset of the Gatehouse object's `RequestPort`). */
export interface AccountPort {
  readonly method: string
  readonly cookie: string | null | undefined
  readonly body?: unknown
  origin(): string
  headers(): Headers
}

/** What the members need of the Gatehouse object. */
export interface AccountMemberHelpers<P extends AccountPort> {
  withSession<T>(port: P, fn: (ctx: SessionContext, rt: ConfigRuntime) => Promise<T>): Promise<T>
  serverConfig(): Promise<ResolvedConfig>
  serverCall<T>(
    port: P,
    fn: (rt: ConfigRuntime, config: ResolvedConfig, request: ServerCallRequest) => Promise<T>,
  ): Promise<T>
  /** Writes (Express) or queues (Fetch) `Set-Cookie` values for the port's answer. */
  setCookies(port: P, values: string[], config: ResolvedConfig): void
}

/** Options of a mutating member: where to go afterwards, and the per-call opt-out of the origin guard. */
export interface MutationOptions {
  redirectTo?: string
  /** `false` skips the origin guard (the app checked the request's origin itself). */
  csrf?: false
}

/** The account and audit members (the request-taking ones first take the port). */
export interface AccountMembers<P = unknown> {
  /**
   * Starts linking an OAuth/OIDC provider to the session user (fresh session): resolves to the authorization URL and
   * sets the check cookies and the link cookie; send the browser there. The callback links the account to this user
   * only and comes back to `redirectTo` with `linked=<provider>` or `error=<Type>`.
   */
  linkAccount(port: P, provider: string, options?: MutationOptions): Promise<string>
  /** What the session user can sign in with (no token, hash or secret), or `null` without a session. */
  listAccounts(port: P): Promise<AccountOverview | null>
  /** Unlinks one OAuth/OIDC account of the session user (fresh session); `LastCredential` keeps the last way in. */
  unlinkAccount(port: P, provider: string, providerAccountId: string, options?: MutationOptions): Promise<true>
  /** Mails a verification link to `newEmail` and a cancel link to the current address (fresh session). */
  changeEmail(port: P, newEmail: string, options?: MutationOptions): Promise<true>
  /** Deletes the session user's account, or mails the confirmation link (`account.deleteConfirmation: "email"`). */
  deleteAccount(port: P, options?: MutationOptions): Promise<{ deleted: true } | { pending: true }>
  /** The session user's own audit events (`limit` 1–50, default 20), or `null` without a session. */
  listMyAuditEvents(port: P, input?: { limit?: number }): Promise<{ events: MyAuditEvent[] } | null>
  /** Server-only: deletes the audit events older than `audit.retention` days; resolves to how many went. */
  pruneAuditEvents(): Promise<number>
  /** Admin: one page of users in email order (`search` = email prefix or exact id; `limit` 1–100; `cursor`). */
  listUsers(
    port: P,
    input?: { search?: string; limit?: number; cursor?: string },
  ): Promise<{ users: UserSummary[]; nextCursor: string | null }>
  /** Admin: one user in detail (accounts without tokens, passkey count, sessions). `NotFound` when missing. */
  getUser(port: P, id: string): Promise<UserDetail>
  /** Admin: bans a user (every session revoked); not yourself (`InvalidTarget`), not an admin (`AdminTarget`). */
  banUser(
    port: P,
    id: string,
    input?: { reason?: string | null; expiresAt?: number | null } & MutationOptions,
  ): Promise<UserSummary>
  /** Admin: lifts a ban. */
  unbanUser(port: P, id: string, options?: MutationOptions): Promise<UserSummary>
  /** Admin: sets a role (`null` clears it); not your own (`InvalidTarget`). */
  setRole(port: P, id: string, role: string | null, options?: MutationOptions): Promise<UserSummary>
  /** Admin: ends every session of a user, audited. */
  adminRevokeSessions(port: P, id: string, options?: MutationOptions): Promise<{ count: number }>
  /**
   * Admin: acts as user `id` for at most `admin.impersonationMaxAge` (fresh session; not yourself, not an admin, not
   * a banned user). Sets the target's session cookie and the impersonator cookie holding your own session; resolves
   * to the target's session, with `impersonatedBy`.
   */
  impersonate(port: P, id: string, options?: MutationOptions): Promise<Session>
  /** Ends the request's impersonation and restores the admin's own session (`null` if it has ended meanwhile). */
  stopImpersonating(port: P, options?: MutationOptions): Promise<Session | null>
  /** Admin: audit events newest first (`limit` 1–200; `userId`, `type` filters; `cursor`). */
  listAuditEvents(
    port: P,
    input?: { userId?: string; type?: string; limit?: number; cursor?: string },
  ): Promise<{ events: AuditEvent[]; nextCursor: string | null }>
}

/** The members that take no request (the edges pass them through as they are). */
export type ServerOnlyAccountMember = "pruneAuditEvents"
export const SERVER_ONLY_ACCOUNT_MEMBERS: ReadonlySet<string> = new Set<ServerOnlyAccountMember>(["pruneAuditEvents"])

/** The app origin of a call: `AUTH_URL`'s, else the request's. */
const appOrigin = (config: ResolvedConfig, port: AccountPort): string => config.authUrl?.origin ?? port.origin()

/** The origin guard of a state-changing server call (`MissingCSRF` when no proof holds). */
function guard(config: ResolvedConfig, port: AccountPort, options: MutationOptions | undefined, what: string): void {
  if (options?.csrf === false) return
  const origin = appOrigin(config, port)
  const { cookies } = requestOrigin(config, new URL(origin))
  const headers = port.headers()
  const passes = originGuardPasses(config, cookies, origin, {
    method: port.method,
    secFetchSite: headers.get("sec-fetch-site"),
    origin: headers.get("origin"),
    cookies: parseCookieHeader(port.cookie ?? undefined),
    bodyCsrfToken: (port.body as { csrfToken?: unknown } | undefined)?.csrfToken,
  })
  if (!passes) {
    throw new MissingCSRF(`${what} needs a same-origin non-GET request (or { csrf: false })`, {
      cause: { method: port.method },
    })
  }
}

/**
 * Builds the members on the Gatehouse object's helpers.
 *
 * @example
 * ```ts
 * const accounts = accountMembers({ withSession, serverConfig })
 * ```
 */
export function accountMembers<P extends AccountPort>(h: AccountMemberHelpers<P>): AccountMembers<P> {
  const mutate = <T>(
    port: P,
    options: MutationOptions | undefined,
    what: string,
    fn: (ctx: SessionContext) => Promise<T>,
  ) =>
    h.withSession(port, (ctx) => {
      guard(ctx.config, port, options, what)
      return fn(ctx)
    })
  return {
    listAccounts: (port) => h.withSession(port, (ctx) => listAccounts(ctx)),
    linkAccount: (port, provider, options) =>
      h.serverCall(port, async (rt, config, request) => {
        guard(config, port, options, "linkAccount")
        const outcome = await invokeAction(rt, config, {
          action: "account",
          providerId: "link",
          method: "POST",
          body: { provider, ...(options?.redirectTo !== undefined ? { callbackUrl: options.redirectTo } : {}) },
          cookies: request.cookies,
          origin: request.origin,
          headers: request.headers,
          ...(request.clientIp !== undefined ? { clientIp: request.clientIp } : {}),
        })
        throwIfFailed(request, outcome)
        h.setCookies(port, outcome.setCookies, config)
        return (outcome.body as { url: string }).url
      }),
    unlinkAccount: (port, provider, providerAccountId, options) =>
      mutate(port, options, "unlinkAccount", (ctx) => unlinkAccount(ctx, provider, providerAccountId)),
    changeEmail: (port, newEmail, options) =>
      mutate(port, options, "changeEmail", (ctx) =>
        changeEmail(ctx, { email: newEmail, origin: appOrigin(ctx.config, port), redirectTo: options?.redirectTo }),
      ),
    deleteAccount: (port, options) =>
      mutate(port, options, "deleteAccount", (ctx) =>
        deleteAccount(ctx, { origin: appOrigin(ctx.config, port), redirectTo: options?.redirectTo }),
      ),
    listMyAuditEvents: (port, input) => h.withSession(port, (ctx) => listMyAuditEvents(ctx, input)),
    pruneAuditEvents: async () => pruneAuditEvents(await h.serverConfig()),
    listUsers: (port, input) => h.withSession(port, (ctx) => listUsers(ctx, input)),
    getUser: (port, id) => h.withSession(port, (ctx) => getUserDetail(ctx, id)),
    banUser: (port, id, input) =>
      mutate(port, input, "banUser", (ctx) => banUser(ctx, id, { reason: input?.reason, expiresAt: input?.expiresAt })),
    unbanUser: (port, id, options) => mutate(port, options, "unbanUser", (ctx) => unbanUser(ctx, id)),
    setRole: (port, id, role, options) => mutate(port, options, "setRole", (ctx) => setRole(ctx, id, role)),
    adminRevokeSessions: (port, id, options) =>
      mutate(port, options, "adminRevokeSessions", (ctx) => adminRevokeSessions(ctx, id)),
    impersonate: (port, id, options) => mutate(port, options, "impersonate", (ctx) => impersonate(ctx, id)),
    stopImpersonating: (port, options) => mutate(port, options, "stopImpersonating", (ctx) => stopImpersonating(ctx)),
    listAuditEvents: (port, input) => h.withSession(port, (ctx) => listAuditEvents(ctx, input)),
  }
}

/**
 * The account, administration and audit members of the Gatehouse object (accounts.md §2.1, §3.2, §4): each takes the
 * request's port (except the server-only ones) and runs on its session context. The edges map them by name.
 */
import type { ResolvedConfig } from "../kernel/config/types"
import { pruneAuditEvents } from "../kernel/audit"
import type { MyAuditEvent } from "../kernel/audit"
import { listMyAuditEvents } from "../methods/account/activity"
import type { SessionContext } from "../session/types"
import type { ConfigRuntime } from "./runtime"

/** What the members need of the Gatehouse object. */
export interface AccountMemberHelpers<P> {
  withSession<T>(port: P, fn: (ctx: SessionContext, rt: ConfigRuntime) => Promise<T>): Promise<T>
  serverConfig(): Promise<ResolvedConfig>
}

/** The account and audit members (the request-taking ones first take the port). */
export interface AccountMembers<P = unknown> {
  /** The session user's own audit events (`limit` 1–50, default 20), or `null` without a session. */
  listMyAuditEvents(port: P, input?: { limit?: number }): Promise<{ events: MyAuditEvent[] } | null>
  /** Server-only: deletes the audit events older than `audit.retention` days; resolves to how many went. */
  pruneAuditEvents(): Promise<number>
}

/** The members that take no request (the edges pass them through as they are). */
export type ServerOnlyAccountMember = "pruneAuditEvents"
export const SERVER_ONLY_ACCOUNT_MEMBERS: ReadonlySet<string> = new Set<ServerOnlyAccountMember>(["pruneAuditEvents"])

/**
 * Builds the members on the Gatehouse object's helpers.
 *
 * @example
 * ```ts
 * const accounts = accountMembers({ withSession, serverConfig })
 * ```
 */
export function accountMembers<P>(h: AccountMemberHelpers<P>): AccountMembers<P> {
  return {
    listMyAuditEvents: (port, input) => h.withSession(port, (ctx) => listMyAuditEvents(ctx, input)),
    pruneAuditEvents: async () => pruneAuditEvents(await h.serverConfig()),
  }
}

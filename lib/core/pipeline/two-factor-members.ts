/** The two-factor members of the Gatehouse object, written once for both flavours on the request's session context. */
import {
  disableTotp,
  enableTotp,
  regenerateBackupCodes,
  twoFactorStatus,
  verifyTotpEnrolment,
  type TotpEnrolment,
  type TwoFactorStatus,
} from "../methods/two-factor/manage"
import type { SessionContext } from "../session/types"

export type { TotpEnrolment, TwoFactorStatus }

/** The members as the core offers them (each edge converts its request into the port). */
export interface TwoFactorMembers<Port> {
  twoFactorStatus(port: Port): Promise<TwoFactorStatus | null>
  enableTotp(port: Port, input?: { issuer?: string; accountName?: string }): Promise<TotpEnrolment>
  verifyTotpEnrolment(port: Port, input: { code: string } | string): Promise<{ backupCodes: string[] }>
  disableTotp(port: Port, input: { code: string }): Promise<true>
  regenerateBackupCodes(port: Port, input: { code: string }): Promise<{ backupCodes: string[] }>
}

/**
 * Builds the members on `withSession` (runs a function on the port's session context and writes its cookies) and
 * `originOf` (the request's origin, for the default issuer).
 *
 * @example
 * ```ts
 * const members = twoFactorMembers(withSession, (port) => port.origin())
 * ```
 */
export function twoFactorMembers<Port>(
  withSession: <T>(port: Port, fn: (ctx: SessionContext) => Promise<T>) => Promise<T>,
  originOf: (port: Port) => string,
): TwoFactorMembers<Port> {
  return {
    twoFactorStatus: (port) => withSession(port, (ctx) => twoFactorStatus(ctx)),
    enableTotp: (port, input) => withSession(port, (ctx) => enableTotp(ctx, originOf(port), input ?? {})),
    verifyTotpEnrolment: (port, input) => withSession(port, (ctx) => verifyTotpEnrolment(ctx, input)),
    disableTotp: (port, input) => withSession(port, (ctx) => disableTotp(ctx, input)),
    regenerateBackupCodes: (port, input) => withSession(port, (ctx) => regenerateBackupCodes(ctx, input)),
  }
}

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

/**
 * The members as the core offers them; each edge derives its own shape from these signatures, putting its request in
 * place of the port. Every one throws `InvalidConfig` without `twoFactor`.
 */
export interface TwoFactorMembers<Port> {
  /** The request user's two-factor state; `null` without a session. */
  twoFactorStatus(port: Port): Promise<TwoFactorStatus | null>
  /** Starts a TOTP enrolment (fresh session): the secret, the `otpauth://` URI and its QR code as SVG (or null). */
  enableTotp(port: Port, input?: { issuer?: string; accountName?: string }): Promise<TotpEnrolment>
  /** Confirms the enrolment with a current code: two-factor sign-in is on; the 10 backup codes, shown once. */
  verifyTotpEnrolment(port: Port, input: { code: string } | string): Promise<{ backupCodes: string[] }>
  /** Turns two-factor sign-in off (fresh session and a current TOTP or backup code). */
  disableTotp(port: Port, input: { code: string }): Promise<true>
  /** Replaces the backup codes (fresh session and a current TOTP or backup code). */
  regenerateBackupCodes(port: Port, input: { code: string }): Promise<{ backupCodes: string[] }>
}

/** Every member's name, for the edges that map the members by name (the compiler checks the list is complete). */
export const TWO_FACTOR_MEMBERS = Object.freeze(
  Object.keys({
    twoFactorStatus: true,
    enableTotp: true,
    verifyTotpEnrolment: true,
    disableTotp: true,
    regenerateBackupCodes: true,
  } satisfies Record<keyof TwoFactorMembers<unknown>, true>),
) as ReadonlyArray<keyof TwoFactorMembers<unknown>>

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

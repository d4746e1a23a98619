/**
 * The two-factor members of the Gatehouse object: status, TOTP enrolment and its confirmation, disabling, and new
 * backup codes. The user is always the principal of the one door; every change needs a fresh session, and disabling
 * or new codes a current factor, through the same replay guard as sign-in.
 */
import {
  InvalidConfig,
  NotFound,
  SessionNotFresh,
  SessionRequired,
  TwoFactorAlreadyEnabled,
  TwoFactorInvalid,
} from "../../../errors"
import { recordAudit } from "../../kernel/audit"
import type { ResolvedTwoFactor } from "../../kernel/config/two-factor"
import { isSessionFresh, revokeOtherSessions } from "../../session/manage"
import { currentPrincipal } from "../../session/principal"
import { principalForChange } from "../../session/for-change"
import { revokeTrust } from "../../session/two-factor/trust"
import type { PrincipalResult, SessionContext } from "../../session/types"
import { newBackupCodes } from "./backup-codes"
import { qrSvg } from "./qr"
import { TWO_FACTOR_SCOPE } from "./route"
import { newTotpSecret, sealTotpSecret } from "./secret"
import { base32Encode } from "./totp"
import { useAnyCode, useTotpCode } from "./verify"

/** What `twoFactorStatus` answers. Times in epoch seconds. */
export interface TwoFactorStatus {
  enabled: boolean
  pendingEnrolment: boolean
  enabledAt?: number
  backupCodesLeft: number
  methods: Array<"totp" | "email">
  required: boolean
  enrolmentRequired: boolean
}

/** What `enableTotp` answers: the secret for manual entry, the `otpauth://` URI and its QR code (or `null`). */
export interface TotpEnrolment {
  secret: string
  uri: string
  qrSvg: string | null
}

interface Who {
  id: string
  email?: string | null
  name?: string | null
}

function configured(ctx: SessionContext): ResolvedTwoFactor {
  const twoFactor = ctx.config.twoFactor
  if (!twoFactor) throw new InvalidConfig("twoFactor is not configured", { cause: { missing: "twoFactor" } })
  return twoFactor
}

/** The signed-in user (id, email, name) through the one door, or `null`. */
async function who(ctx: SessionContext): Promise<Who | null> {
  return whoOf(await currentPrincipal(ctx))
}

/** The user (id, email, name) of a door's answer, or `null`. */
function whoOf(door: PrincipalResult): Who | null {
  if (!door.ok) return null
  const { principal } = door
  if (principal.strategy === "database") return principal.user
  if (!principal.userId) return null
  const { email, name } = principal.token
  return {
    id: principal.userId,
    email: typeof email === "string" ? email : null,
    name: typeof name === "string" ? name : null,
  }
}

/** Configured, signed in and (for changes) fresh; in that order. */
async function changing(ctx: SessionContext): Promise<{ twoFactor: ResolvedTwoFactor; user: Who }> {
  const twoFactor = configured(ctx)
  const user = whoOf(await principalForChange(ctx))
  if (!user) throw new SessionRequired("A signed-in user is required")
  if (!(await isSessionFresh(ctx))) throw new SessionNotFresh("Sign in again to change two-factor settings")
  return { twoFactor, user }
}

/** Counts one attempt on `two-factor-account`; over the limit, `RateLimited`. */
async function countAttempt(ctx: SessionContext, userId: string): Promise<void> {
  const limiter = ctx.config.rateLimit
  const verdict = await limiter.hit("two-factor-account", TWO_FACTOR_SCOPE, userId)
  if (verdict) throw limiter.refuse(verdict)
}

function codeOf(input: unknown): unknown {
  if (typeof input === "string") return input
  if (typeof input === "object" && input !== null) return (input as { code?: unknown }).code
  return undefined
}

async function afterChange(ctx: SessionContext, twoFactor: ResolvedTwoFactor, userId: string): Promise<void> {
  await revokeTrust(ctx.config, userId)
  if (twoFactor.revokeOtherSessionsOnEnable) await revokeOtherSessions(ctx, "two-factor")
}

/**
 * The signed-in user's two-factor state, or `null` without a session.
 *
 * @example
 * ```ts
 * const status = await twoFactorStatus(ctx) // { enabled: true, backupCodesLeft: 9, ... }
 * ```
 */
export async function twoFactorStatus(ctx: SessionContext): Promise<TwoFactorStatus | null> {
  const twoFactor = configured(ctx)
  const user = await who(ctx)
  if (!user) return null
  const row = await twoFactor.store.getTwoFactor(user.id)
  const enabled = row?.verifiedAt != null
  const required = await twoFactor.required({ ...user, email: user.email ?? null, emailVerified: null })
  const emailOffered = !enabled && required && twoFactor.methods.includes("email") && Boolean(user.email)
  const methods: Array<"totp" | "email"> = enabled ? ["totp"] : emailOffered ? ["email"] : []
  return {
    enabled,
    pendingEnrolment: row !== null && row.verifiedAt === null,
    ...(enabled ? { enabledAt: Math.floor(row!.verifiedAt!.getTime() / 1000) } : {}),
    backupCodesLeft: enabled ? row!.backupCodes.filter((c) => c !== null).length : 0,
    methods,
    required,
    enrolmentRequired: required && !enabled,
  }
}

/**
 * Starts (or restarts) a TOTP enrolment: a new secret in an unconfirmed row; two-factor sign-in is not on until
 * {@link verifyTotpEnrolment}.
 *
 * @example
 * ```ts
 * const { secret, uri, qrSvg } = await enableTotp(ctx, "app.example")
 * ```
 */
export async function enableTotp(
  ctx: SessionContext,
  origin: string,
  input: { issuer?: unknown; accountName?: unknown } = {},
): Promise<TotpEnrolment> {
  const { twoFactor, user } = await changing(ctx)
  const row = await twoFactor.store.getTwoFactor(user.id)
  if (row?.verifiedAt) throw new TwoFactorAlreadyEnabled("Two-factor sign-in is already on")
  const issuer =
    typeof input.issuer === "string" && input.issuer !== ""
      ? input.issuer
      : (twoFactor.issuer ?? (ctx.config.authUrl ?? new URL(origin)).host)
  const accountName =
    typeof input.accountName === "string" && input.accountName !== ""
      ? input.accountName
      : (user.email ?? user.name ?? user.id)
  const raw = newTotpSecret()
  const now = new Date()
  await twoFactor.store.upsertTwoFactor({
    userId: user.id,
    secret: await sealTotpSecret(raw, user.id, ctx.config.secret),
    verifiedAt: null,
    lastUsedStep: 0,
    backupCodes: [],
    version: 0,
    createdAt: now,
    updatedAt: now,
  })
  const secret = base32Encode(raw)
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(accountName)}`
  const uri =
    `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}` +
    "&algorithm=SHA1&digits=6&period=30"
  return { secret, uri, qrSvg: await qrSvg(uri, ctx.config.logger) }
}

/**
 * Confirms an enrolment with a current code: two-factor sign-in is on, and the 10 backup codes are returned (shown
 * once). Other sessions end (by default) and every trusted device is forgotten.
 *
 * @example
 * ```ts
 * const { backupCodes } = await verifyTotpEnrolment(ctx, { code: "123456" })
 * ```
 */
export async function verifyTotpEnrolment(ctx: SessionContext, input: unknown): Promise<{ backupCodes: string[] }> {
  const { twoFactor, user } = await changing(ctx)
  const row = await twoFactor.store.getTwoFactor(user.id)
  if (!row || row.verifiedAt !== null) throw new NotFound("No enrolment in progress")
  await countAttempt(ctx, user.id)
  const { codes, hashes } = newBackupCodes(user.id, ctx.config.secret)
  const updated = await useTotpCode(ctx.config, user.id, codeOf(input), "pending", () => ({
    verifiedAt: new Date(),
    backupCodes: hashes,
  }))
  if (!updated) throw new TwoFactorInvalid("The code is not valid")
  await ctx.config.rateLimit.reset("two-factor-account", TWO_FACTOR_SCOPE, user.id)
  await afterChange(ctx, twoFactor, user.id)
  await ctx.config.events.twoFactorEnabled({ userId: user.id })
  await recordAudit(ctx, { type: "twofactor.enabled", userId: user.id })
  return { backupCodes: codes }
}

/**
 * The common part of disable and regenerate: a confirmed row, the account rule, then a valid code (a backup code
 * accepted is audited as `twofactor.backup_code_used`, as at sign-in).
 */
async function provenChange(ctx: SessionContext, input: unknown): Promise<{ twoFactor: ResolvedTwoFactor; user: Who }> {
  const { twoFactor, user } = await changing(ctx)
  const row = await twoFactor.store.getTwoFactor(user.id)
  if (!row?.verifiedAt) throw new NotFound("Two-factor sign-in is not on")
  await countAttempt(ctx, user.id)
  const used = await useAnyCode(ctx.config, user.id, codeOf(input))
  if (!used) throw new TwoFactorInvalid("The code is not valid")
  await ctx.config.rateLimit.reset("two-factor-account", TWO_FACTOR_SCOPE, user.id)
  if (used === "backup-code") {
    const after = await twoFactor.store.getTwoFactor(user.id)
    const remaining = after ? after.backupCodes.filter((c) => c !== null).length : 0
    await recordAudit(ctx, { type: "twofactor.backup_code_used", userId: user.id, details: { remaining } })
  }
  return { twoFactor, user }
}

/**
 * Turns two-factor sign-in off with a current TOTP or backup code: the row goes, trusted devices are forgotten, other
 * sessions end (by default).
 *
 * @example
 * ```ts
 * await disableTotp(ctx, { code: "123456" }) // true
 * ```
 */
export async function disableTotp(ctx: SessionContext, input: unknown): Promise<true> {
  const { twoFactor, user } = await provenChange(ctx, input)
  await twoFactor.store.deleteTwoFactor(user.id)
  await afterChange(ctx, twoFactor, user.id)
  await ctx.config.events.twoFactorDisabled({ userId: user.id })
  await recordAudit(ctx, { type: "twofactor.disabled", userId: user.id })
  return true
}

/**
 * Replaces the 10 backup codes (the old ones stop working) after a current TOTP or backup code.
 *
 * @example
 * ```ts
 * const { backupCodes } = await regenerateBackupCodes(ctx, { code: "123456" })
 * ```
 */
export async function regenerateBackupCodes(ctx: SessionContext, input: unknown): Promise<{ backupCodes: string[] }> {
  const { twoFactor, user } = await provenChange(ctx, input)
  const { codes, hashes } = newBackupCodes(user.id, ctx.config.secret)
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await twoFactor.store.getTwoFactor(user.id)
    if (!row?.verifiedAt) throw new NotFound("Two-factor sign-in is not on")
    if (await twoFactor.store.updateTwoFactor(user.id, { backupCodes: hashes }, { expectedVersion: row.version })) {
      await ctx.config.events.backupCodesRegenerated({ userId: user.id })
      await recordAudit(ctx, { type: "twofactor.backup_codes_regenerated", userId: user.id })
      return { backupCodes: codes }
    }
  }
  throw new TwoFactorInvalid("The codes changed meanwhile; try again")
}

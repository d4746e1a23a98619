/**
 * Checking a user's second-factor code against their row, for sign-in and the members alike: TOTP with the replay
 * guard (the matched step must be past `lastUsedStep`, written by compare-and-swap), and backup codes used up
 * atomically. A lost race re-reads once; a second miss fails.
 */
import type { LoggerInstance } from "../../../logger"
import type { AdapterTwoFactor, TwoFactorPatch } from "../../../storage/adapter"
import type { ResolvedConfig } from "../../kernel/config/types"
import { matchBackupCode, normalizeBackupCode } from "./backup-codes"
import { openTotpSecret, sealTotpSecret } from "./secret"
import { matchTotpStep, normalizeTotpInput } from "./totp"

type Config = Pick<ResolvedConfig, "twoFactor" | "secret" | "logger">

const warnedUnreadable = new WeakMap<LoggerInstance, Set<string>>()

function unreadable(logger: LoggerInstance, userId: string): void {
  let seen = warnedUnreadable.get(logger)
  if (!seen) warnedUnreadable.set(logger, (seen = new Set()))
  if (seen.has(userId)) return
  seen.add(userId)
  logger.warn("two-factor-secret-unreadable")
}

/** Which rows a check accepts: a confirmed enrolment (sign-in, disable, regenerate) or one awaiting confirmation. */
export type RowState = "verified" | "pending"

function rowMatches(row: AdapterTwoFactor | null, state: RowState): row is AdapterTwoFactor {
  if (!row) return false
  return state === "verified" ? row.verifiedAt !== null : row.verifiedAt === null
}

/**
 * Accepts a TOTP code once: resolves to the updated row (with `extra` applied in the same write), or `null` for a
 * wrong, replayed or unreadable code. A row sealed under an older secret is re-encrypted in that write.
 *
 * @example
 * ```ts
 * const row = await useTotpCode(config, userId, "123456", "verified")
 * ```
 */
export async function useTotpCode(
  config: Config,
  userId: string,
  input: unknown,
  state: RowState,
  extra: (row: AdapterTwoFactor) => TwoFactorPatch = () => ({}),
): Promise<AdapterTwoFactor | null> {
  const store = config.twoFactor!.store
  const code = normalizeTotpInput(input)
  if (code === null) return null
  for (let attempt = 0; attempt < 2; attempt++) {
    const row = await store.getTwoFactor(userId)
    if (!rowMatches(row, state)) return null
    const opened = await openTotpSecret(row.secret, userId, config.secret)
    if (!opened.ok) {
      unreadable(config.logger, userId)
      return null
    }
    const step = matchTotpStep(opened.raw, code, Math.floor(Date.now() / 1000))
    if (step === null || step <= row.lastUsedStep) return null
    const patch: TwoFactorPatch = { lastUsedStep: step, ...extra(row) }
    if (opened.rotated) patch.secret = await sealTotpSecret(opened.raw, userId, config.secret)
    const updated = await store.updateTwoFactor(userId, patch, { expectedVersion: row.version })
    if (updated) return updated
  }
  return null
}

/**
 * Uses up a backup code: resolves to the updated row (the entry set to `null`), or `null` when no unused entry
 * matches.
 *
 * @example
 * ```ts
 * const row = await useBackupCode(config, userId, "abcde-12345")
 * ```
 */
export async function useBackupCode(config: Config, userId: string, input: unknown): Promise<AdapterTwoFactor | null> {
  const store = config.twoFactor!.store
  const code = normalizeBackupCode(input)
  if (code === null) return null
  for (let attempt = 0; attempt < 2; attempt++) {
    const row = await store.getTwoFactor(userId)
    if (!rowMatches(row, "verified")) return null
    const index = matchBackupCode(row.backupCodes, code, userId, config.secret)
    if (index === -1) return null
    const backupCodes = row.backupCodes.map((entry, i) => (i === index ? null : entry))
    const updated = await store.updateTwoFactor(userId, { backupCodes }, { expectedVersion: row.version })
    if (updated) return updated
  }
  return null
}

/**
 * A member's proof (`disableTotp`, `regenerateBackupCodes`): a TOTP code, else a backup code, in one field.
 *
 * @example
 * ```ts
 * const used = await useAnyCode(config, userId, input.code) // "totp" | "backup-code" | null
 * ```
 */
export async function useAnyCode(
  config: Config,
  userId: string,
  input: unknown,
): Promise<"totp" | "backup-code" | null> {
  if (normalizeTotpInput(input) !== null) return (await useTotpCode(config, userId, input, "verified")) ? "totp" : null
  return (await useBackupCode(config, userId, input)) ? "backup-code" : null
}

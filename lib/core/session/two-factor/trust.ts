/**
 * Trusted devices: a sealed cookie `{u, id, iat}` that lets its user skip the second factor once, and is replaced by a
 * new one each time (single use: `2fa-trust-spent:<id>`). A per-user watermark `2fa-trust-nbf:<userId>` voids every
 * cookie issued before it (disable, a new enrolment, "sign out everywhere"). A sign-in that fails after spending a
 * cookie hands the device an equivalent one back, so trust is lost only to replay or revocation.
 */
import { randomBytes } from "node:crypto"
import { storedInteger } from "../../../storage/kv"
import { checkSealer, type CheckBinding } from "../../kernel/checks"
import type { ResolvedConfig } from "../../kernel/config/types"
import type { RequestContext } from "../../kernel/context"

interface TrustValue {
  u: string
  id: string
  iat: number
}

type Ctx = Pick<RequestContext, "config" | "cookies" | "jar" | "request">

const binding = (ctx: Pick<RequestContext, "cookies">): Omit<CheckBinding, "maxAge"> => ({
  purpose: "twoFactorTrust",
  provider: "",
  salt: ctx.cookies.twoFactorTrust.name,
})

/**
 * Sets a new trust cookie for `userId` (a new id, `iat` now, the full `trustDevice.maxAge`). Nothing when trust is off.
 *
 * @example
 * ```ts
 * await issueTrust(ctx, user.id)
 * ```
 */
export async function issueTrust(ctx: Ctx, userId: string): Promise<void> {
  const trust = ctx.config.twoFactor?.trustDevice
  if (!trust) return
  const { name, options } = ctx.cookies.twoFactorTrust
  const value: TrustValue = { u: userId, id: randomBytes(16).toString("base64url"), iat: Date.now() }
  const sealed = await checkSealer(ctx.config.secret).seal({ ...binding(ctx), maxAge: trust.maxAge }, value)
  ctx.jar.set(name, sealed, { ...options, maxAge: trust.maxAge })
}

/** A trust cookie this sign-in has spent: whose it was and when it was first issued. */
export interface SpentTrust {
  userId: string
  iat: number
}

/**
 * Spends the request's trust cookie when it is valid for `userId`, and answers what it was; `null` otherwise. A
 * cookie of another user is left alone; a replayed (spent) one is cleared and reported as `twofactor.trust_replayed`.
 * The caller then issues the session and calls {@link issueTrust} (rotation), or {@link restoreTrust} when the
 * sign-in fails.
 *
 * @example
 * ```ts
 * const spent = await useTrustedDevice(ctx, user.id)
 * ```
 */
export async function useTrustedDevice(ctx: Ctx, userId: string): Promise<SpentTrust | null> {
  const { config } = ctx
  const trust = config.twoFactor?.trustDevice
  if (!trust) return null
  const { name, options } = ctx.cookies.twoFactorTrust
  const opened = await checkSealer(config.secret).open<TrustValue>(binding(ctx), ctx.request.cookies[name])
  if (!opened.ok) return null
  const { u, id, iat } = opened.value
  if (u !== userId || typeof id !== "string" || typeof iat !== "number") return null
  const [nbf] = await config.store.get([`2fa-trust-nbf:${userId}`])
  const watermark = storedInteger(nbf)
  if (watermark !== null && iat <= watermark) {
    ctx.jar.delete(name, options)
    return null
  }
  if (!(await config.store.consume(`2fa-trust-spent:${id}`, trust.maxAge))) {
    ctx.jar.delete(name, options)
    await config.events.securityAlert({ type: "twofactor.trust_replayed", userId })
    return null
  }
  return { userId, iat }
}

/**
 * Gives the device back the trust a failed sign-in spent: a new cookie (new id, the spent one stays spent) with the
 * same `iat` and the lifetime it had left, so a failure never lengthens trust, and revocations still reach it. It is
 * kept on the error answer.
 *
 * @example
 * ```ts
 * try { return await completeSignIn(ctx, params) } catch (error) { await restoreTrust(ctx, spent); throw error }
 * ```
 */
export async function restoreTrust(ctx: Ctx, spent: SpentTrust): Promise<void> {
  const trust = ctx.config.twoFactor?.trustDevice
  if (!trust) return
  const left = Math.floor((spent.iat + trust.maxAge * 1000 - Date.now()) / 1000)
  if (left <= 0) return
  const { name, options } = ctx.cookies.twoFactorTrust
  const value: TrustValue = { u: spent.userId, id: randomBytes(16).toString("base64url"), iat: spent.iat }
  const sealed = await checkSealer(ctx.config.secret).seal({ ...binding(ctx), maxAge: left }, value)
  ctx.jar.setKeptOnError(name, sealed, { ...options, maxAge: left })
}

/**
 * Voids every trust cookie of `userId` issued until now.
 *
 * @example
 * ```ts
 * await revokeTrust(config, userId)
 * ```
 */
export async function revokeTrust(config: Pick<ResolvedConfig, "twoFactor" | "store">, userId: string): Promise<void> {
  const trust = config.twoFactor?.trustDevice
  if (!config.twoFactor) return
  const maxAge = trust ? trust.maxAge : 2_592_000
  await config.store.setMax(`2fa-trust-nbf:${userId}`, Date.now(), maxAge)
}

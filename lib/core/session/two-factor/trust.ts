/**
 * Trusted devices: a sealed cookie `{u, id, iat}` that lets its user skip the second factor once, and is replaced by a
 * new one each time (single use: `2fa-trust-spent:<id>`). A per-user watermark `2fa-trust-nbf:<userId>` voids every
 * cookie issued before it (disable, a new enrolment, "sign out everywhere").
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

/**
 * Whether the request carries a valid trust cookie for `userId`, using it up: then a new one replaces it. A cookie of
 * another user is left alone; a replayed (spent) one is cleared and reported as `twofactor.trust_replayed`.
 *
 * @example
 * ```ts
 * if (await useTrustedDevice(ctx, user.id)) return completeSignIn(...)
 * ```
 */
export async function useTrustedDevice(ctx: Ctx, userId: string): Promise<boolean> {
  const { config } = ctx
  const trust = config.twoFactor?.trustDevice
  if (!trust) return false
  const { name, options } = ctx.cookies.twoFactorTrust
  const opened = await checkSealer(config.secret).open<TrustValue>(binding(ctx), ctx.request.cookies[name])
  if (!opened.ok) return false
  const { u, id, iat } = opened.value
  if (u !== userId || typeof id !== "string" || typeof iat !== "number") return false
  const [nbf] = await config.store.get([`2fa-trust-nbf:${userId}`])
  const watermark = storedInteger(nbf)
  if (watermark !== null && iat <= watermark) {
    ctx.jar.delete(name, options)
    return false
  }
  if (!(await config.store.consume(`2fa-trust-spent:${id}`, trust.maxAge))) {
    ctx.jar.delete(name, options)
    await config.events.securityAlert({ type: "twofactor.trust_replayed", userId })
    return false
  }
  await issueTrust(ctx, userId)
  return true
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

/**
 * The pending sign-in: what a first factor established, sealed into the `gatehouse.two-factor` cookie (10 minutes)
 * while the second factor is asked. It grants nothing: only the two-factor route reads it.
 */
import { randomBytes } from "node:crypto"
import { readSessionCookie } from "../../../cookie-header"
import type { IdpRecord } from "../../../oauth"
import type { AdapterUser } from "../../../storage/adapter"
import { checkSealer, type CheckBinding } from "../../kernel/checks"
import type { RequestContext } from "../../kernel/context"
import { clearSessionCookie, writeSessionCookie } from "../../kernel/cookies/session-store"
import { TWO_FACTOR_PENDING_MAX_AGE } from "../../kernel/cookies/names"
import type { Account, Profile, User } from "../../kernel/types"

/** A second-factor method. */
export type SecondFactorMethod = "totp" | "email"

/** The sealed content of the pending cookie. */
export interface PendingSignIn {
  /** The challenge id (16 random bytes, base64url): the key of its attempt counter and its single use. */
  id: string
  method: SecondFactorMethod
  user: User | AdapterUser
  account: Account | null
  profile?: Profile
  isNewUser?: boolean
  idp?: IdpRecord
  dpopKey?: Record<string, unknown>
  callbackUrl: string
  /** The first factor's provider type. */
  firstFactor: string
  /** Epoch ms when the first factor passed. */
  iat: number
  /** Method `email`: the masked address the code went to. */
  sentTo?: string
}

type Ctx = Pick<RequestContext, "config" | "cookies" | "jar" | "request" | "logger">

const binding = (ctx: Pick<RequestContext, "cookies">): Omit<CheckBinding, "maxAge"> => ({
  purpose: "twoFactor",
  provider: "",
  salt: ctx.cookies.twoFactor.name,
})

/** A new challenge id. */
export function newChallengeId(): string {
  return randomBytes(16).toString("base64url")
}

/**
 * Seals `pending` into the pending cookie (chunked like the session cookie when long), replacing any earlier one.
 *
 * @example
 * ```ts
 * await writePending(ctx, { id: newChallengeId(), method: "totp", user, account, callbackUrl, firstFactor, iat })
 * ```
 */
export async function writePending(ctx: Ctx, pending: PendingSignIn): Promise<void> {
  const { name, options } = ctx.cookies.twoFactor
  const maxAge = TWO_FACTOR_PENDING_MAX_AGE
  const sealed = await checkSealer(ctx.config.secret).seal({ ...binding(ctx), maxAge }, pending)
  const present = readSessionCookie(ctx.request.cookies, name).present
  writeSessionCookie(ctx.jar, name, sealed, { ...options, maxAge }, present, ctx.logger)
}

/**
 * The pending sign-in this browser carries, or `null` when it is missing, expired or unreadable.
 *
 * @example
 * ```ts
 * const pending = await readPending(ctx)
 * ```
 */
export async function readPending(ctx: Ctx): Promise<PendingSignIn | null> {
  const { value } = readSessionCookie(ctx.request.cookies, ctx.cookies.twoFactor.name)
  const opened = await checkSealer(ctx.config.secret).open<PendingSignIn>(binding(ctx), value)
  if (!opened.ok) return null
  const pending = opened.value
  if (typeof pending !== "object" || typeof pending.id !== "string" || typeof pending.callbackUrl !== "string") {
    return null
  }
  return pending
}

/**
 * Queues deletion of the pending cookie (every chunk the request carried, and the plain name).
 *
 * @example
 * ```ts
 * clearPending(ctx)
 * ```
 */
export function clearPending(ctx: Ctx): void {
  const { name, options } = ctx.cookies.twoFactor
  const { present } = readSessionCookie(ctx.request.cookies, name)
  clearSessionCookie(ctx.jar, present.includes(name) ? present : [...present, name], options)
}

/**
 * Where the second factor is asked: `pages.twoFactor` (made absolute) or `<origin>{base}/two-factor`.
 *
 * @example
 * ```ts
 * twoFactorPageUrl(ctx) // "https://app.example/auth/two-factor"
 * ```
 */
export function twoFactorPageUrl(ctx: Pick<RequestContext, "config" | "origin">): string {
  const custom = ctx.config.pages.twoFactor
  if (custom) return custom.startsWith("/") ? `${ctx.origin}${custom}` : custom
  return `${ctx.origin}${ctx.config.basePath}/two-factor`
}

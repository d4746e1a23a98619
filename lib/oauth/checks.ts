/** The state, PKCE and nonce checks: values sealed in cookies bound to the provider and to their purpose. */
import type { SerializeOptions } from "cookie"
import { generateRandomState } from "oauth4webapi"
import { InvalidCheck } from "../errors"
import { decode, encode } from "../jwt"
import type { OAuthFlowContext } from "./types"

/** Lifetime of every check cookie and of the encoded state, in seconds. */
export const CHECK_MAX_AGE = 900
/** Salt of the JWE carried in the `state` parameter (wire-compatible with Auth.js for redirect-proxy interop). */
export const STATE_SALT = "encodedState"

export type CheckPurpose = "state" | "pkce" | "nonce"

const COOKIE_KEY = { state: "state", pkce: "pkceCodeVerifier", nonce: "nonce" } as const

/** What the `state` parameter's JWE holds. */
export interface StatePayload {
  random: string
  /** With a redirect proxy: the callback URL of the deployment that started the flow. */
  origin?: string
}

function cookieOptions(ctx: OAuthFlowContext, purpose: CheckPurpose): SerializeOptions {
  const { options } = ctx.checkCookies[COOKIE_KEY[purpose]]
  // form_post callbacks are cross-site POSTs: a Lax cookie would not come back with them.
  if (ctx.provider.formPost && purpose !== "pkce") return { ...options, sameSite: "none", secure: true }
  return options
}

/**
 * The lifetime of a check cookie: the cookie's configured `maxAge` (a user's `cookies.<name>.options.maxAge` is
 * honoured, never overridden), else {@link CHECK_MAX_AGE}. The sealed value expires with the cookie.
 */
function lifetimeOf(options: SerializeOptions): number {
  const { maxAge } = options
  return typeof maxAge === "number" && Number.isFinite(maxAge) && maxAge > 0 ? maxAge : CHECK_MAX_AGE
}

/**
 * Seals `value` for `purpose` and this provider (the core's sealer) and writes it as that check's cookie, for the
 * cookie's configured lifetime (900 s by default).
 *
 * @example
 * ```ts
 * await sealCheck(ctx, "pkce", codeVerifier)
 * ```
 */
export async function sealCheck(ctx: OAuthFlowContext, purpose: CheckPurpose, value: string): Promise<void> {
  const { name } = ctx.checkCookies[COOKIE_KEY[purpose]]
  const options = cookieOptions(ctx, purpose)
  const maxAge = lifetimeOf(options)
  const sealed = await ctx.checks.seal({ purpose, provider: ctx.provider.id, salt: name, maxAge }, value)
  ctx.setCookie(name, sealed, { ...options, maxAge, expires: new Date(Date.now() + maxAge * 1000) })
}

/**
 * Reads and unseals a check cookie. The caller deletes it afterwards with {@link discardCheckCookies}.
 *
 * @throws InvalidCheck("<key> value could not be parsed") when the cookie is missing, undecodable, expired, or was
 *   minted for another provider or another purpose; the reason is in `cause`.
 * @example
 * ```ts
 * const codeVerifier = await useCheck(ctx, "pkce")
 * ```
 */
export async function useCheck(ctx: OAuthFlowContext, purpose: CheckPurpose): Promise<string> {
  const key = COOKIE_KEY[purpose]
  const { name } = ctx.checkCookies[key]
  const opened = await ctx.checks.open({ purpose, provider: ctx.provider.id, salt: name }, ctx.requestCookies[name])
  if (opened.ok && typeof opened.value === "string") return opened.value
  const reason = opened.ok ? "undecodable" : opened.reason
  throw new InvalidCheck(`${key} value could not be parsed`, { cause: { reason, provider: ctx.provider.id } })
}

/**
 * Queues the deletion (Max-Age 0) of every check cookie the request carried: they are single use, whatever the outcome.
 *
 * @example
 * ```ts
 * try { return await verifyCallback(ctx) } finally { discardCheckCookies(ctx) }
 * ```
 */
export function discardCheckCookies(
  ctx: OAuthFlowContext,
  purposes: readonly CheckPurpose[] = ["state", "pkce", "nonce"],
): void {
  for (const purpose of purposes) {
    const { name } = ctx.checkCookies[COOKIE_KEY[purpose]]
    if (ctx.requestCookies[name] === undefined) continue
    ctx.setCookie(name, "", { ...cookieOptions(ctx, purpose), expires: undefined, maxAge: 0 })
  }
}

/**
 * Creates the `state` parameter: a random value, plus the origin deployment when a redirect proxy is used, in a JWE.
 *
 * @example
 * ```ts
 * const state = await createState(ctx.secret, "https://preview-42.example.com/auth/callback/github")
 * ```
 */
export async function createState(secret: readonly string[], origin?: string): Promise<string> {
  const payload: StatePayload = origin ? { random: generateRandomState(), origin } : { random: generateRandomState() }
  return encode<StatePayload>({ token: payload, secret, salt: STATE_SALT, maxAge: CHECK_MAX_AGE })
}

/**
 * Opens a `state` parameter made by {@link createState}; `null` when it is not ours, tampered with or expired.
 *
 * @example
 * ```ts
 * const state = await openState(ctx.secret, params.get("state") ?? "")
 * if (state?.origin) redirectTo(state.origin)
 * ```
 */
export async function openState(secret: readonly string[], state: string): Promise<StatePayload | null> {
  const payload = await decode<Partial<StatePayload>>({ token: state, secret, salt: STATE_SALT }).catch(() => null)
  if (!payload || typeof payload.random !== "string") return null
  if (payload.origin !== undefined && typeof payload.origin !== "string") return null
  return { random: payload.random, origin: payload.origin }
}

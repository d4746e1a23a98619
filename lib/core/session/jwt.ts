/** The JWT session strategy: read (with the jwt and session callbacks), refresh, and clear the session cookie. */
import { defaultCallbacks, runSessionCallback } from "../kernel/config/callbacks"
import { noEvent } from "../kernel/config/events"
import { JWTSessionError, isServiceUnavailable } from "../../errors"
import { decode as builtinDecode } from "../../jwt"
import { deriveKey, type ContentEncryption } from "../../jwt/keys"
import { clearSessionCookie, writeSessionCookie } from "../kernel/cookies/session-store"
import type { JWT, Session } from "../kernel/types"
import { withoutReserved } from "./idp"
import type { SessionContext, SessionReadOptions } from "./types"
import { impersonationOf, keepClaims } from "./claims"
import { currentPrincipal, type JwtPrincipal } from "./principal"
import { hasRefreshError } from "./tokens"
import { withKeys } from "../../with-keys"

const nowSeconds = () => Math.floor(Date.now() / 1000)

/**
 * Whether a cookie of this config can have been sealed with an older secret: a rotation list, read by the built-in
 * decoder. Synchronous, so a hot path can skip {@link sealedWithOlderSecret}'s asynchronous call when it cannot.
 */
export function mayHoldOlderSecrets(config: Pick<SessionContext["config"], "secret" | "jwt">): boolean {
  return config.secret.length > 1 && config.jwt.decode === builtinDecode
}

/**
 * Whether a session JWE was sealed with an older secret of the rotation list (so a read should re-issue it with the
 * current one). Only the protected header is read, and only when there are several secrets and the built-in decoder
 * is in use; a token without `kid` belongs to the first secret, as the decoder decides. Call it after a successful
 * decode: the header is then known to be authentic.
 *
 * @example
 * ```ts
 * if (await sealedWithOlderSecret(ctx, cookieValue)) await writeJwtSession(ctx, token, present)
 * ```
 */
export async function sealedWithOlderSecret(ctx: SessionContext, token: string): Promise<boolean> {
  const { secret } = ctx.config
  if (!mayHoldOlderSecrets(ctx.config)) return false
  let header: { kid?: unknown; enc?: unknown }
  try {
    header = JSON.parse(Buffer.from(token.slice(0, token.indexOf(".")), "base64url").toString("utf8")) as typeof header
  } catch {
    return false
  }
  if (header.kid === undefined) return false
  const enc: ContentEncryption = header.enc === "A256GCM" ? "A256GCM" : "A256CBC-HS512"
  const current = await deriveKey(secret[0]!, ctx.cookies.sessionToken.name, enc)
  return current.kid !== header.kid
}

/**
 * Writes `token` as the session cookie (chunked as needed), expiring with the session.
 *
 * @example
 * ```ts
 * await writeJwtSession(ctx, { sub: "1", name: "Ada" }, present)
 * ```
 */
export async function writeJwtSession(ctx: SessionContext, token: JWT, present: readonly string[]): Promise<void> {
  const { config, cookies } = ctx
  // An impersonation session never outlives its hard expiry: neither the token's `exp` nor the cookie.
  const left = cappedLifetime(token, config.jwt.maxAge)
  const encoded = await config.jwt.encode({
    token,
    secret: config.secret,
    salt: cookies.sessionToken.name,
    maxAge: left,
  })
  const expires = new Date(Date.now() + cappedLifetime(token, config.session.maxAge) * 1000)
  if (ctx.tokenOut) {
    // A bearer client gets the token itself (T1.3 re-issue, T1.4): one string, never chunked, never a cookie.
    ctx.tokenOut.token = encoded
    ctx.tokenOut.expires = Math.floor(Date.now() / 1000) + left
    return
  }
  writeSessionCookie(
    ctx.jar,
    cookies.sessionToken.name,
    encoded,
    withKeys(cookies.sessionToken.options, { expires }),
    present,
    config.logger,
  )
}

/** `maxAge` seconds, or what is left of an impersonation session when that is less (never below 0). */
function cappedLifetime(token: JWT, maxAge: number): number {
  const impersonation = impersonationOf(token)
  return impersonation ? Math.max(0, Math.min(maxAge, impersonation.until - nowSeconds())) : maxAge
}

/**
 * Reads the JWT session: decode → `jwt` callback → `session` callback → re-issue → `session` event. Any failure
 * (garbled, expired, foreign-key token, throwing callback) logs `JWTSessionError`, clears the cookies and returns null.
 *
 * @example
 * ```ts
 * const session = await readJwtSession(ctx, { reissue: "always" })
 * ```
 */
export async function readJwtSession(ctx: SessionContext, options: SessionReadOptions): Promise<Session | null> {
  const { config, cookies } = ctx
  const result = await currentPrincipal(ctx)
  const stored = result.cookie
  if (!result.ok) {
    if (result.reason === "error") {
      // The store could not say whether the session was ended elsewhere: no session now, but the cookie is kept.
      if (options.failOnOutage && isServiceUnavailable(result.error)) throw result.error
      return null
    }
    if (stored.present.length > 0) clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
    // A bearer is not cleared by a read, so its end was already told once, where it was ended (tokens.md T1.6).
    if (!ctx.bearer && result.token && (result.reason === "revoked" || result.reason === "backchannel")) {
      await config.events.signOut({
        token: result.reason === "backchannel" ? withoutReserved(result.token) : result.token,
        reason: result.reason,
      })
    }
    return null
  }
  const payload = (result.principal as JwtPrincipal).token
  const cookieValue = (ctx.bearer?.token ?? stored.value) as string
  try {
    // The default `jwt` callback returns the token it is given: without the user's own, the payload is the result. It
    // is the cache's frozen object, read here; whatever is handed on (encode, the session event) gets a copy.
    const token =
      config.callbacks.jwt === defaultCallbacks.jwt
        ? payload
        : claimsKept(
            payload,
            await config.callbacks.jwt(
              options.update
                ? { token: { ...payload }, session: options.update.data, trigger: "update" }
                : { token: { ...payload }, session: undefined },
            ),
          )
    if (token === null || token === undefined) {
      clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
      return null
    }
    const reissue =
      options.reissue === "always" ||
      options.update !== undefined ||
      typeof payload.iat !== "number" ||
      nowSeconds() - payload.iat >= config.session.updateAge ||
      (config.hasJwtCallback && changed(payload, token)) ||
      (mayHoldOlderSecrets(config) && (await sealedWithOlderSecret(ctx, cookieValue)))
    const expires = reissue
      ? new Date(Date.now() + cappedLifetime(token, config.session.maxAge) * 1000).toISOString()
      : isoSeconds(payload.exp ?? nowSeconds())
    const base = {
      user: { name: token.name, email: token.email, image: token.picture },
      expires,
    }
    // The default `session` callback answers this same shape: without the user's own, `base` is the session.
    const session =
      config.callbacks.session === defaultCallbacks.session
        ? base
        : await runSessionCallback(config.callbacks, { session: base, token: withoutReserved(token) })
    // Set after the callback, so the app cannot hide an impersonation by accident (accounts.md §3.5).
    const impersonation = impersonationOf(token)
    if (impersonation && session && typeof session === "object") (session as Session).impersonatedBy = impersonation.by
    if (hasRefreshError(token)) {
      // The provider refused the refresh token: the session says so until the next sign-in.
      if (config.session.refresh?.signOutOnError) {
        clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
        return null
      }
      if (session && typeof session === "object") (session as Session).error = "RefreshTokenError"
    }
    if (reissue) await writeJwtSession(ctx, token === payload ? { ...payload } : token, stored.present)
    if (config.events.session !== noEvent) {
      await config.events.session({ session: session as Session, token: token === payload ? { ...payload } : token })
    }
    return session as Session
  } catch (error) {
    if (options.failOnOutage && isServiceUnavailable(error)) throw error
    config.logger.error(new JWTSessionError("The JWT session could not be read", { cause: error as Error }))
    clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
    return null
  }
}

/**
 * `seconds` (since the epoch) as an ISO date, the last one kept: a session that is not re-issued answers its token's
 * `exp`, the same for every read of one cookie, and formatting a date costs more than the rest of the answer.
 */
let lastIso: { seconds: number; iso: string } | undefined
function isoSeconds(seconds: number): string {
  if (lastIso?.seconds !== seconds) lastIso = { seconds, iso: new Date(seconds * 1000).toISOString() }
  return lastIso.iso
}

/** What a `jwt` callback returned, with the token's own claim kept ({@link keepClaims}); `null`/`undefined` as is. */
function claimsKept(payload: JWT, returned: JWT | null | undefined): JWT | null | undefined {
  return returned === null || returned === undefined ? returned : keepClaims(payload, returned)
}

function changed(before: JWT, after: JWT): boolean {
  const strip = ({ iat: _i, exp: _e, jti: _j, ...rest }: JWT) => rest
  return JSON.stringify(strip(before)) !== JSON.stringify(strip(after))
}

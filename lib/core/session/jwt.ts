/** The JWT session strategy: read (with the jwt and session callbacks), refresh, and clear the session cookie. */
import { defaultCallbacks, runSessionCallback } from "../kernel/config/callbacks"
import { noEvent } from "../kernel/config/events"
import { AdapterError, JWTSessionError, isServiceUnavailable } from "../../errors"
import { adapterError } from "../kernel/config/adapter"
import { decode as builtinDecode } from "../../jwt"
import { decodeOrThrow } from "../../jwt/decode"
import { deriveKey, type ContentEncryption } from "../../jwt/keys"
import { clearSessionCookie, writeSessionCookie } from "../kernel/cookies/session-store"
import { readSessionCookie } from "../../cookie-header"
import type { JWT, Session } from "../kernel/types"
import { endedByMarkers, idpMarkerKeys, idpOfToken, withoutReserved } from "./idp"
import type { SessionContext, SessionReadOptions } from "./types"
import { claimsOf, keepClaims, sessionWatermarkKey } from "./claims"
import { hasRefreshError } from "./tokens"

const nowSeconds = () => Math.floor(Date.now() / 1000)

/**
 * Decode failures that happen in normal use, logged at debug level with a short reason instead of as an error: a
 * cookie from before a secret change (often the random development secret of an earlier run), or one past its expiry.
 */
const expectedDecodeFailures: Readonly<Record<string, string>> = {
  "no matching decryption secret":
    "it was sealed with another secret (an old one, or the random development secret of an earlier run)",
  "token expired": "it has expired",
}

export async function decodeSessionToken(ctx: SessionContext, token: string): Promise<JWT> {
  const { config } = ctx
  const salt = ctx.cookies.sessionToken.name
  if (config.jwt.decode !== builtinDecode) {
    const payload = await config.jwt.decode({ token, secret: config.secret, salt })
    if (!payload) throw new Error("Invalid JWT")
    return payload
  }
  const cached = ctx.sessionCache?.get(token, nowSeconds())
  if (cached) return cached
  const payload = await decodeOrThrow({ token, secret: config.secret, salt })
  if (!payload) throw new Error("Invalid JWT")
  ctx.sessionCache?.set(token, payload)
  return payload
}

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
  const encoded = await config.jwt.encode({
    token,
    secret: config.secret,
    salt: cookies.sessionToken.name,
    maxAge: config.jwt.maxAge,
  })
  const expires = new Date(Date.now() + config.session.maxAge * 1000)
  writeSessionCookie(
    ctx.jar,
    cookies.sessionToken.name,
    encoded,
    { ...cookies.sessionToken.options, expires },
    present,
    config.logger,
  )
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
  const stored = readSessionCookie(ctx.requestCookies, cookies.sessionToken.name)
  if (!stored.value) {
    if (stored.present.length > 0) clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
    return null
  }
  let payload: JWT
  try {
    payload = await decodeSessionToken(ctx, stored.value)
  } catch (error) {
    const reason = expectedDecodeFailures[(error as Error).message]
    if (reason === undefined)
      config.logger.error(new JWTSessionError("The JWT session could not be read", { cause: error as Error }))
    else config.logger.debug(`session cookie ignored: ${reason}`)
    clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
    return null
  }
  try {
    const revoked = await revokedByWatermark(ctx, payload, options.failOnOutage)
    if (revoked !== false) {
      if (revoked === "unknown") return null
      clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
      await config.events.signOut({
        token: revoked === "backchannel" ? withoutReserved(payload) : payload,
        reason: revoked,
      })
      return null
    }
    // The default `jwt` callback returns the token it is given: without the user's own, the copy is the result.
    const returned =
      config.callbacks.jwt === defaultCallbacks.jwt
        ? { ...payload }
        : await config.callbacks.jwt(
            options.update
              ? { token: { ...payload }, session: options.update.data, trigger: "update" }
              : { token: { ...payload }, session: undefined },
          )
    const token = returned === null || returned === undefined ? returned : keepClaims(payload, returned)
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
      (mayHoldOlderSecrets(config) && (await sealedWithOlderSecret(ctx, stored.value)))
    const expires = reissue
      ? new Date(Date.now() + config.session.maxAge * 1000)
      : new Date((payload.exp ?? nowSeconds()) * 1000)
    const base = {
      user: { name: token.name, email: token.email, image: token.picture },
      expires: expires.toISOString(),
    }
    // The default `session` callback answers this same shape: without the user's own, `base` is the session.
    const session =
      config.callbacks.session === defaultCallbacks.session
        ? base
        : await runSessionCallback(config.callbacks, { session: base, token: withoutReserved(token) })
    if (hasRefreshError(token)) {
      // The provider refused the refresh token: the session says so until the next sign-in.
      if (config.session.refresh?.signOutOnError) {
        clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
        return null
      }
      if (session && typeof session === "object") (session as Session).error = "RefreshTokenError"
    }
    if (reissue) await writeJwtSession(ctx, token, stored.present)
    if (config.events.session !== noEvent) await config.events.session({ session: session as Session, token })
    return session as Session
  } catch (error) {
    if (options.failOnOutage && isServiceUnavailable(error)) throw error
    config.logger.error(new JWTSessionError("The JWT session could not be read", { cause: error as Error }))
    clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
    return null
  }
}

/**
 * Whether the session of this token was ended elsewhere, in one store round trip: `"revoked"` when the user signed out
 * everywhere after it began (its epoch `__gh.se`, 0 for tokens issued before epochs existed, is below the
 * `sess-nbf:<sub>` watermark); `"backchannel"` when its OP ended it (a `sid` marker, or a `sub`
 * watermark at or after its auth time). A store failure is logged and answers `"unknown"`: no session for this
 * request, but the cookie is kept; with `failOnOutage`, an unreachable store throws its coded `AdapterError` instead.
 */
export async function revokedByWatermark(
  ctx: SessionContext,
  payload: JWT,
  failOnOutage = false,
): Promise<false | "revoked" | "backchannel" | "unknown"> {
  const hasSub = typeof payload.sub === "string" && payload.sub !== ""
  const idp = idpOfToken(payload)
  const keys = idp ? idpMarkerKeys(idp) : []
  if (hasSub) keys.unshift(sessionWatermarkKey(payload.sub as string))
  if (keys.length === 0) return false
  let values: Array<string | null>
  try {
    values = await ctx.config.store.get(keys)
  } catch (error) {
    const coded = error instanceof AdapterError ? error : adapterError("store.get", error)
    ctx.config.logger.error(new JWTSessionError("The JWT session could not be read", { cause: coded }))
    if (failOnOutage && isServiceUnavailable(coded)) throw coded
    return "unknown"
  }
  if (hasSub) {
    const watermark = values.shift() ?? null
    if (watermark !== null && (claimsOf(payload)?.se ?? 0) < Number(watermark)) return "revoked"
  }
  return idp && endedByMarkers(idp, values) ? "backchannel" : false
}

function changed(before: JWT, after: JWT): boolean {
  const strip = ({ iat: _i, exp: _e, jti: _j, ...rest }: JWT) => rest
  return JSON.stringify(strip(before)) !== JSON.stringify(strip(after))
}

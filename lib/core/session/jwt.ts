/** The JWT session strategy: read (with the jwt and session callbacks), refresh, and clear the session cookie. */
import { JWTSessionError } from "../../errors"
import { decode as builtinDecode } from "../../jwt"
import { decodeOrThrow } from "../../jwt/decode"
import { clearSessionCookie, readSessionCookie, writeSessionCookie } from "../cookies/session-store"
import type { JWT, Session } from "../types"
import type { SessionContext, SessionReadOptions } from "./types"

const nowSeconds = () => Math.floor(Date.now() / 1000)

async function decodeSessionToken(ctx: SessionContext, token: string): Promise<JWT> {
  const { config } = ctx
  const salt = ctx.cookies.sessionToken.name
  if (config.jwt.decode !== builtinDecode) {
    const payload = await config.jwt.decode({ token, secret: config.secret, salt })
    if (!payload) throw new Error("Invalid JWT")
    return payload
  }
  const cached = config.sessionCache.get(token, nowSeconds())
  if (cached) return cached
  const payload = await decodeOrThrow({ token, secret: config.secret, salt })
  if (!payload) throw new Error("Invalid JWT")
  config.sessionCache.set(token, payload)
  return payload
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
  try {
    const payload = await decodeSessionToken(ctx, stored.value)
    const token = await config.callbacks.jwt(
      options.update
        ? { token: { ...payload }, session: options.update.data, trigger: "update" }
        : { token: { ...payload }, session: undefined },
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
      (config.userCallbacks.jwt !== undefined && changed(payload, token))
    const expires = reissue
      ? new Date(Date.now() + config.session.maxAge * 1000)
      : new Date((payload.exp ?? nowSeconds()) * 1000)
    const session = await config.callbacks.session({
      session: { user: { name: token.name, email: token.email, image: token.picture }, expires: expires.toISOString() },
      token,
    } as unknown as Parameters<typeof config.callbacks.session>[0])
    if (reissue) await writeJwtSession(ctx, token, stored.present)
    await config.events.session({ session: session as Session, token })
    return session as Session
  } catch (error) {
    config.logger.error(new JWTSessionError(error as Error))
    clearSessionCookie(ctx.jar, stored.present, cookies.sessionToken.options)
    return null
  }
}

function changed(before: JWT, after: JWT): boolean {
  const strip = ({ iat: _i, exp: _e, jti: _j, ...rest }: JWT) => rest
  return JSON.stringify(strip(before)) !== JSON.stringify(strip(after))
}

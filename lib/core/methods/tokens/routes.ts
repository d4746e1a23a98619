/** `GET <base>/token` and `GET <base>/jwks` (tokens.md T3.2, T3.3): served only with `accessTokens`. */
import { AccessDenied, InvalidRequest } from "../../../errors"
import type { RequestContext } from "../../kernel/context"
import { jsonHeaders, type AuthResult } from "../../kernel/response"
import { tokenAnswerHeaders } from "../../kernel/bearer"
import { sessionContext } from "../../session/context"
import { issueAccessToken } from "./issue"
import { KeysUnavailable, liveKeys, publicJwk } from "./keys"

const badRequest: AuthResult = { status: 400, headers: { ...jsonHeaders }, body: "Bad request." }

const answer = (status: number, body: unknown, headers: Record<string, string> = {}): AuthResult => ({
  status,
  headers: { ...tokenAnswerHeaders, ...headers },
  body,
})

/**
 * `GET <base>/token`: an access token for the signed-in user (the bearer when the request carries one, else the
 * session cookie). A cookie request from another site is refused: cross-site clients use a bearer.
 *
 * @example
 * ```ts
 * const result = await tokenAction(ctx)
 * ```
 */
export async function tokenAction(ctx: RequestContext): Promise<AuthResult> {
  if (!ctx.config.accessTokens || ctx.request.method !== "GET") return badRequest
  if (!ctx.bearer && ctx.request.headers.get("sec-fetch-site") === "cross-site") {
    return answer(403, { error: "MissingCSRF" })
  }
  const { audience, scope } = ctx.request.query
  try {
    const issued = await issueAccessToken(sessionContext(ctx), ctx.origin, {
      ...(typeof audience === "string" ? { audience } : {}),
      ...(typeof scope === "string" ? { scope } : {}),
    })
    if (!issued) {
      const challenge = ctx.bearer ? 'Bearer error="invalid_token"' : "Bearer"
      return answer(401, { error: "Unauthorized" }, { "WWW-Authenticate": challenge })
    }
    return answer(200, issued)
  } catch (error) {
    if (error instanceof InvalidRequest) return answer(400, { error: error.code })
    if (error instanceof AccessDenied) {
      ctx.logger.error(error)
      return answer(403, { error: "AccessDenied" })
    }
    if (error instanceof KeysUnavailable)
      return answer(503, { error: "temporarily_unavailable" }, { "Retry-After": "2" })
    throw error
  }
}

/**
 * `GET <base>/jwks`: the public part of every live key, signer first (generating the first key if there is none).
 *
 * @example
 * ```ts
 * const result = await jwksAction(ctx)
 * ```
 */
export async function jwksAction(ctx: RequestContext): Promise<AuthResult> {
  const options = ctx.config.accessTokens
  if (!options) return badRequest
  let keys
  try {
    keys = await liveKeys(ctx.config, options, async (kid, previousKid) =>
      ctx.config.events.signingKeyRotated({ kid, ...(previousKid ? { previousKid } : {}) }),
    )
  } catch (error) {
    if (error instanceof KeysUnavailable)
      return answer(503, { error: "temporarily_unavailable" }, { "Retry-After": "2" })
    throw error
  }
  return {
    status: 200,
    headers: { ...jsonHeaders, "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" },
    body: { keys: keys.map(publicJwk) },
  }
}

/**
 * Access tokens for other services (tokens.md T3.2): an RFC 9068 JWT for the signed-in user of the request, whoever
 * it is through the one door (a bearer or the session cookie), signed with the live signer of `keys.ts`.
 */
import { randomBytes } from "node:crypto"
import { SignJWT } from "jose"
import { AccessDenied, InvalidRequest } from "../../../errors"
import type { ResolvedAccessTokens } from "../../kernel/config/access-tokens"
import type { ResolvedConfig } from "../../kernel/config/types"
import { withoutReserved } from "../../session/idp"
import { principalForChange } from "../../session/for-change"
import type { SessionContext } from "../../session/types"
import { liveKeys, signingKeyOf } from "./keys"

/** The answer of `GET <base>/token` and `issueAccessToken`. */
export interface IssuedAccessToken {
  access_token: string
  token_type: "Bearer"
  expires_in: number
  scope?: string
}

/** What a caller asks for. */
export interface AccessTokenRequest {
  audience?: string
  scope?: string
}

const RESERVED = new Set(["iss", "sub", "aud", "exp", "iat", "nbf", "jti", "client_id", "scope", "auth_time", "cnf"])
const warnedReserved = new Set<string>()

/** The issuer: `accessTokens.issuer`, else `<origin><basePath>` (AUTH_URL's origin when set, else the request's). */
export function accessTokenIssuer(config: ResolvedConfig, origin: string): string {
  return config.accessTokens?.issuer ?? `${config.authUrl?.origin ?? origin}${config.basePath}`
}

/** Checks the request's audience and scope against the options: the chosen audience and the granted scope. */
function grant(options: ResolvedAccessTokens, input: AccessTokenRequest): { audience: string; scope?: string } {
  const audience = input.audience ?? options.audiences[0]!
  if (typeof audience !== "string" || !options.audiences.includes(audience)) {
    throw new InvalidRequest("The audience is not one of accessTokens.audience", {
      code: "invalid_target",
      status: 400,
    })
  }
  if (input.scope === undefined || input.scope === "") return { audience }
  const asked = typeof input.scope === "string" ? input.scope.split(" ").filter(Boolean) : null
  if (!asked || asked.some((scope) => !options.scopes.includes(scope))) {
    throw new InvalidRequest("A scope is not one of accessTokens.scopes", { code: "invalid_scope", status: 400 })
  }
  return { audience, scope: [...new Set(asked)].join(" ") }
}

/**
 * Issues an access token for the request's user, or `null` without a session. Throws `InvalidRequest`
 * (`invalid_target`, `invalid_scope`) or `AccessDenied` (the `claims` callback refused).
 *
 * @example
 * ```ts
 * const issued = await issueAccessToken(sessionContext(ctx), ctx.origin, { scope: "read" })
 * ```
 */
export async function issueAccessToken(
  ctx: SessionContext,
  origin: string,
  input: AccessTokenRequest,
): Promise<IssuedAccessToken | null> {
  const { config } = ctx
  const options = config.accessTokens!
  const { audience, scope } = grant(options, input)
  // A token minted here would carry neither `impersonatedBy` nor the impersonation's cap (accounts.md §3.5).
  const door = await principalForChange(ctx, "An impersonation session cannot get access tokens")
  if (!door.ok) return null
  const { principal } = door
  const userId = principal.userId
  if (userId === undefined) return null
  let extra: Record<string, unknown> = {}
  if (options.claims) {
    let returned: Record<string, unknown> | null
    try {
      returned = await options.claims({
        session: principal.strategy === "jwt" ? withoutReserved(principal.token) : null,
        userId,
        audience,
        ...(scope ? { scope } : {}),
      })
    } catch (error) {
      throw new AccessDenied("accessTokens.claims threw", { cause: error as Error })
    }
    if (returned === null || typeof returned !== "object") throw new AccessDenied("accessTokens.claims refused")
    extra = Object.fromEntries(
      Object.entries(returned).filter(([name]) => {
        if (!RESERVED.has(name)) return true
        if (!warnedReserved.has(name)) {
          warnedReserved.add(name)
          config.logger.debug(`access-token-reserved-claim: the claims callback returned "${name}", which is dropped`)
        }
        return false
      }),
    )
  }
  const keys = await liveKeys(config, options, async (kid, previousKid) =>
    config.events.signingKeyRotated({ kid, ...(previousKid ? { previousKid } : {}) }),
  )
  const signer = keys[0]!
  const jti = randomBytes(16).toString("base64url")
  const iat = Math.floor(Date.now() / 1000)
  const claims: Record<string, unknown> = {
    ...extra,
    client_id: options.clientId,
    ...(principal.authTime !== undefined ? { auth_time: principal.authTime } : {}),
    ...(scope ? { scope } : {}),
  }
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: "at+jwt" })
    .setIssuer(accessTokenIssuer(config, origin))
    .setSubject(userId)
    .setAudience(audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + options.ttl)
    .setJti(jti)
    .sign(await signingKeyOf(signer))
  await config.events.accessTokenIssued({ userId, audience, ...(scope ? { scope } : {}), jti })
  return { access_token: token, token_type: "Bearer", expires_in: options.ttl, ...(scope ? { scope } : {}) }
}

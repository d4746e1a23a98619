/**
 * The server functions of tokens.md T3 as members of the Gatehouse object: `issueAccessToken` (both flavours) and
 * `rotateAccessTokenKeys`. Kept beside `session-members.ts`, which builds the members on them.
 */
import { AuthError, InvalidConfig, InvalidRequest } from "../../errors"
import type { ResolvedConfig } from "../kernel/config/types"
import { issueAccessToken, type AccessTokenRequest, type IssuedAccessToken } from "../methods/tokens/issue"
import { KeysUnavailable, rotateKeys } from "../methods/tokens/keys"
import type { SessionContext } from "../session/types"

export type { AccessTokenRequest, IssuedAccessToken }

const notConfigured = () =>
  new InvalidConfig("Access tokens are not configured: set accessTokens", { cause: { option: "accessTokens" } })

/**
 * `issueAccessToken(…, {audience?, scope?})`: the answer of `GET <base>/token`, or `null` without a session.
 *
 * @example
 * ```ts
 * const issued = await issueForRequest(ctx, origin, { scope: "read" })
 * ```
 */
export async function issueForRequest(
  ctx: SessionContext,
  origin: string,
  input: AccessTokenRequest = {},
): Promise<IssuedAccessToken | null> {
  if (!ctx.config.accessTokens) throw notConfigured()
  if (input === null || typeof input !== "object") {
    throw new InvalidRequest("issueAccessToken takes one object", { code: "invalid_request" })
  }
  try {
    return await issueAccessToken(ctx, origin, input)
  } catch (error) {
    if (error instanceof KeysUnavailable) throw new AuthError("Access token keys are unavailable", { cause: error })
    throw error
  }
}

/**
 * `rotateAccessTokenKeys()`: a new signer now; the previous key stays published for `rotation.overlap`.
 *
 * @example
 * ```ts
 * const { kid, previousKid } = await rotateForConfig(config)
 * ```
 */
export async function rotateForConfig(config: ResolvedConfig): Promise<{ kid: string; previousKid: string | null }> {
  if (!config.accessTokens) throw notConfigured()
  const rotated = await rotateKeys(config, config.accessTokens)
  await config.events.signingKeyRotated({
    kid: rotated.kid,
    ...(rotated.previousKid ? { previousKid: rotated.previousKid } : {}),
  })
  return rotated
}

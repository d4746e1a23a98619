/** GET /providers: the configured providers with their sign-in and callback URLs. No cookies. */
import { actionUrl, type RequestContext } from "../../kernel/context"
import { jsonHeaders, type AuthResult } from "../../kernel/response"

/**
 * Lists the providers as `{id, name, type, signinUrl, callbackUrl}` keyed by id.
 *
 * @example
 * ```ts
 * listProviders(ctx).body // { github: { id: "github", ... } }
 * ```
 */
export function listProviders(ctx: RequestContext): AuthResult {
  const body = Object.fromEntries(
    ctx.config.providers.map((p) => [
      p.id,
      {
        id: p.id,
        name: p.name,
        type: p.type,
        signinUrl: actionUrl(ctx, "signin", p.id),
        callbackUrl: actionUrl(ctx, "callback", p.id),
      },
    ]),
  )
  return { headers: { ...jsonHeaders }, body }
}

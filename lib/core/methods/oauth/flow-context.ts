/** The OAuth engine's view of a request: the narrow flow context `lib/oauth/` works through. */
import type { OAuthFlowContext, ResolvedOAuthProvider } from "../../../oauth"
import { checkSealer } from "../../kernel/checks"
import { actionUrl, type RequestContext } from "../../kernel/context"

/**
 * The slice of the request context the OAuth engine needs.
 *
 * @example
 * ```ts
 * const url = await startOAuthSignIn(oauthFlowContext(ctx, provider))
 * ```
 */
export function oauthFlowContext(ctx: RequestContext, provider: ResolvedOAuthProvider): OAuthFlowContext {
  return {
    provider,
    callbackUrl: actionUrl(ctx, "callback", provider.id),
    origin: ctx.origin,
    configuredOrigin: ctx.config.authUrl !== undefined,
    secret: ctx.config.secret,
    requestCookies: ctx.request.cookies,
    checkCookies: {
      state: ctx.cookies.state,
      pkceCodeVerifier: ctx.cookies.pkceCodeVerifier,
      nonce: ctx.cookies.nonce,
    },
    setCookie: (name, value, options) => ctx.jar.set(name, value, options),
    checks: checkSealer(ctx.config.secret),
    logger: ctx.logger,
    query: ctx.request.query,
  }
}

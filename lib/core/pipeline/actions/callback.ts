/** /callback/:provider: dispatch by provider type and method. */
import { InvalidProvider } from "../../../errors"
import type { RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import { credentialsCallback } from "../../methods/credentials/callback"
import { oauthCallback } from "../../methods/oauth/callback"
import { emailCallback } from "../../methods/email/email"
import { webAuthnCallback } from "../../methods/webauthn/callback"
import { passwordSignIn } from "../../methods/password/routes"

/**
 * Handles GET and POST /callback/:provider.
 *
 * @example
 * ```ts
 * const result = await callbackAction(ctx)
 * ```
 */
export async function callbackAction(ctx: RequestContext): Promise<AuthResult> {
  const provider = ctx.provider
  if (!provider) throw new InvalidProvider("Callback route called without provider")
  // The router has checked the provider type and method against the route table.
  switch (provider.type) {
    case "oauth":
    case "oidc":
      return oauthCallback(ctx, provider)
    case "email":
      return emailCallback(ctx, provider)
    case "credentials":
      return credentialsCallback(ctx, provider)
    case "webauthn":
      return webAuthnCallback(ctx)
    case "password":
      return passwordSignIn(ctx, provider)
  }
  throw new InvalidProvider("Callback for this provider type is not supported", {
    cause: { provider: ctx.provider?.id },
  })
}

/** /callback/:provider: dispatch by provider type and method. */
import { InvalidProvider } from "../../../errors"
import type { RequestContext } from "../../context"
import type { AuthResult } from "../../response"
import { credentialsCallback } from "./credentials"
import { oauthCallback } from "./oauth"
import { emailCallback } from "../email"

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
  const method = ctx.request.method
  switch (provider.type) {
    case "oauth":
    case "oidc":
      return oauthCallback(ctx, provider)
    case "email":
      return emailCallback(ctx, provider)
    case "credentials":
      if (method === "POST") return credentialsCallback(ctx, provider)
      break
    default:
      break
  }
  throw new InvalidProvider(`Callback for provider type (${provider.type}) is not supported`)
}

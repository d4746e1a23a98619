/** /callback/:provider: dispatch by provider type and method. */
import { AuthError, InvalidProvider } from "../../../errors"
import { recordAudit } from "../../kernel/audit"
import { sessionContext } from "../../session/context"
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
  try {
    return await dispatch(ctx)
  } catch (error) {
    // A passkey registration is not a sign-in attempt; every other failed callback ends one. The user is not known
    // here (a credentials form's typed identifier is never recorded).
    if (!(ctx.provider?.type === "webauthn" && ctx.request.body?.action === "register")) {
      await recordAudit(sessionContext(ctx), {
        type: "signin",
        userId: null,
        provider: ctx.provider?.id ?? null,
        outcome: "failure",
        reason: error instanceof AuthError ? error.type : "AuthError",
      })
    }
    throw error
  }
}

async function dispatch(ctx: RequestContext): Promise<AuthResult> {
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

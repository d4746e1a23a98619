/**
 * The router: pairs each row of the route table (`routes.ts`) with its handler and enforces the row's policy before
 * the handler runs (method, provider type, CSRF). A handler never checks CSRF itself, so a new action cannot forget it.
 */
import { InvalidProvider, MissingCSRF, UnknownAction } from "../../errors"
import type { RequestContext } from "../kernel/context"
import type { AuthResult } from "../kernel/response"
import { policyOf, type AuthAction, type CsrfRule, type Method } from "../kernel/routes"
import { callbackAction } from "./actions/callback"
import { csrfAction } from "./actions/csrf"
import { errorPage, verifyRequestPage } from "./actions/pages"
import { listProviders } from "./actions/providers"
import { sessionAction } from "../session/session-route"
import { signInAction } from "./actions/signin"
import { signOutAction } from "./actions/signout"
import { backchannelLogoutAction } from "../methods/oauth/backchannel-logout"
import { signOutCallbackAction } from "../methods/oauth/federated-logout"
import { webAuthnOptionsAction } from "../methods/webauthn/options"
import { passkeysAction } from "../methods/webauthn/routes"
import { sessionsAction } from "../session/sessions-route"
import { accountRoute } from "./actions/account"
import { adminAction } from "../methods/account/admin-routes"
import { jsonHeaders } from "../kernel/response"
import { limitRoute, routeLimits } from "./rate-limit"
import { forgetRejectedFields } from "../methods/credentials/callback"
import { jwksAction, tokenAction } from "../methods/tokens/routes"
import { nativeAction } from "../methods/native/confirm"
import { exchangeNativeCode } from "../methods/native/exchange"
import { twoFactorAction } from "../methods/two-factor/route"
import { passwordHandlers } from "../methods/password/routes"

type Handler = (ctx: RequestContext) => AuthResult | Promise<AuthResult>

const handlers: Record<AuthAction, Handler | undefined> = {
  providers: listProviders,
  session: sessionAction,
  csrf: csrfAction,
  signin: signInAction,
  signout: signOutAction,
  callback: callbackAction,
  "verify-request": verifyRequestPage,
  error: errorPage,
  "webauthn-options": webAuthnOptionsAction,
  passkeys: passkeysAction,
  sessions: sessionsAction,
  account: accountRoute,
  admin: adminAction,
  "signout-callback": signOutCallbackAction,
  "backchannel-logout": backchannelLogoutAction,
  token: (ctx) => (ctx.request.method === "POST" && ctx.config.native ? exchangeNativeCode(ctx) : tokenAction(ctx)),
  native: nativeAction,
  jwks: jwksAction,
  "two-factor": twoFactorAction,
  ...passwordHandlers,
}

/** The methods and CSRF rule that apply to this request: the provider type's when the route lists types. */
function applicablePolicy(ctx: RequestContext): { methods: readonly Method[]; csrf: CsrfRule } {
  const { action } = ctx.request
  const policy = policyOf(action)
  if (!policy.providerTypes || !ctx.provider) return policy
  const byType = policy.providerTypes[ctx.provider.type]
  if (!byType) {
    throw new InvalidProvider(`Provider type (${ctx.provider.type}) is not supported by this action`, {
      cause: { action, provider: ctx.provider.id },
    })
  }
  return byType
}

/**
 * Runs the handler of the request's action after enforcing its policy: an unsupported method or action throws
 * `UnknownAction`, a provider of a type the action does not take throws `InvalidProvider`, and a POST without a valid
 * CSRF token (where the rule asks for one) throws `MissingCSRF`.
 *
 * @example
 * ```ts
 * const result = await route(ctx) // POST /signout without a CSRF token → MissingCSRF
 * ```
 */
export async function route(ctx: RequestContext): Promise<AuthResult> {
  const { action, method } = ctx.request
  const policy = policyOf(action)
  // An opt-in route that is off is not one of ours, like any unknown path.
  const off =
    (policy.feature && !ctx.config.features[policy.feature]) ||
    (policy.requiresProviderType && !ctx.config.providers.some((p) => p.type === policy.requiresProviderType)) ||
    (policy.configured && !ctx.config[policy.configured])
  if (off) return { status: 400, headers: { ...jsonHeaders }, body: "Bad request." }
  const handler = handlers[action]
  if (!handler || !policy.methods.includes(method)) throw new UnknownAction(`Cannot handle action: ${action}`)
  if (policy.provider === "required" && !ctx.provider) {
    throw new InvalidProvider(`The ${action} route needs a provider`, { cause: { action } })
  }
  const { methods, csrf } = applicablePolicy(ctx)
  if (!methods.includes(method)) {
    throw new InvalidProvider(`Provider type (${ctx.provider?.type}) does not support ${method} on this action`, {
      cause: { action, provider: ctx.provider?.id },
    })
  }
  if (csrf === "post" && method === "POST" && !ctx.csrfVerified) {
    throw new MissingCSRF(`CSRF token was missing during an action ${action}`, { status: policy.csrfStatus ?? 400 })
  }
  // Before any credential, email or authenticator work (E.2 rule 1). A request no rule counts (every session read)
  // does not wait a turn of the queue for nothing.
  const limits = routeLimits(ctx)
  if (limits.length > 0) await limitRoute(ctx, limits)
  const result = await handler(ctx)
  // Looked at only when the browser carries the refill cookie: most requests never pay for the check.
  const refill = ctx.request.cookies[ctx.cookies.credentialsRefill.name]
  if (refill !== undefined && !ctx.tokenAnswer && changesWhoIsSignedIn(ctx)) forgetRejectedFields(ctx)
  return result
}

/**
 * Whether this answer signs someone in or out: a sign-out, or a session cookie issued (by any sign-in method). What a
 * rejected credentials attempt left for the sign-in form then goes too.
 */
function changesWhoIsSignedIn(ctx: RequestContext): boolean {
  const { action, method } = ctx.request
  if (action === "signout" && method === "POST") return true
  const session = ctx.cookies.sessionToken.name
  return ctx.jar
    .list()
    .some((cookie) => cookie.value !== "" && (cookie.name === session || cookie.name.startsWith(`${session}.`)))
}

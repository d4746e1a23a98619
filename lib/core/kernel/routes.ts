/**
 * The route table: every action Gatehouse serves, with its policy (methods, CSRF rule, provider segment, accepted
 * provider types, how errors are answered). Data only, so request parsing and the Express mount can read it without
 * importing the actions; `router.ts` pairs each row with its handler and enforces the policy.
 */
import type { ErrorType } from "../../error-codes"
import type { ProviderType } from "../../models"
import type { RateLimitRuleName } from "./types"

export type Method = "GET" | "POST"

/** `"post"`: a POST must carry the double-submit CSRF token; `"none"`: no check (nothing state-changing for a forger). */
export type CsrfRule = "post" | "none"

export interface RoutePolicy {
  readonly methods: readonly Method[]
  readonly csrf: CsrfRule
  /** Whether `/<action>/<providerId>` is accepted, and whether the segment is required. */
  readonly provider?: "optional" | "required"
  /**
   * The provider types this action accepts, each with its own methods and CSRF rule (overriding the action's).
   * Absent: every configured provider is accepted and the handler decides.
   */
  readonly providerTypes?: Readonly<Partial<Record<ProviderType, { methods: readonly Method[]; csrf: CsrfRule }>>>
  /**
   * Methods whose errors are answered as JSON `null` (status from the error, else 400) instead of a redirect to an
   * error page: what a script calling the action can read.
   */
  readonly jsonErrors?: readonly Method[]
  /**
   * The body of those JSON error answers: `null` (the reference's /session), `{"error": "<type>"}`, or the OAuth
   * error form `{"error": "invalid_request", "error_description": "<message>"}` with `Cache-Control: no-store`.
   */
  readonly jsonErrorBody?: "null" | "type" | "oauth"
  /** Status of a failed CSRF check on a JSON route (default 400). */
  readonly csrfStatus?: number
  /** An opt-in route: answered only when this `features` flag is on, else it is not one of ours (400). */
  readonly feature?: "passkeyRoutes" | "sessionRoutes" | "adminRoutes"
  /** Gatehouse's own route, always on but not one of the reference's nine actions. */
  readonly extension?: true
  /** A feature's own flow: answered only when this config option is set, else it is not one of ours (400). */
  readonly configured?: "twoFactor"
  /** A route of a provider's own flow: answered only when a provider of this type is configured, else 400. */
  readonly requiresProviderType?: ProviderType
  /**
   * The rate-limit rules keyed by IP or session that the router applies before the handler, for these methods (and
   * only for a provider of `providerType`, when given). The identifier rules run in the handlers.
   */
  readonly rateLimits?: ReadonlyArray<{
    readonly methods: readonly Method[]
    readonly providerType?: ProviderType
    /** Only for a provider configured to push its authorization request (`par: true` or `fapi2`). */
    readonly pushing?: true
    /** Only for these sub-routes `/<action>/<segment>` of an action whose segment names no provider. */
    readonly segments?: readonly string[]
    readonly rules: readonly RateLimitRuleName[]
  }>
  /**
   * Refusals a script calling the route reads, answered `{"error": "<type>"}` with the error's status (`RateLimited`:
   * 429 with `Retry-After`) even though other errors show a page.
   */
  readonly jsonRefusals?: readonly ErrorType[]
  /**
   * The largest body this action reads, in bytes: a larger one (by its `Content-Length`, or counted as it streams in)
   * is not read any further, and the handler sees it as too large. Absent: the general limits apply.
   */
  readonly bodyLimit?: number
  /**
   * Whether a bearer session counts on this route (tokens.md T1.2): with `session.bearer` on, a request carrying
   * `Authorization: Bearer` is identified by it alone, and its POSTs skip the CSRF check. Absent: cookies only.
   */
  readonly bearer?: true
}

const callbackTypes = {
  oauth: { methods: ["GET", "POST"], csrf: "none" }, // POST: response_mode=form_post, a cross-site POST by design
  oidc: { methods: ["GET", "POST"], csrf: "none" },
  // GET: the link itself (the confirmation page, or the sign-in with `confirm: false`); POST: the confirmation form.
  email: { methods: ["GET", "POST"], csrf: "post" },
  credentials: { methods: ["POST"], csrf: "post" },
  webauthn: { methods: ["POST"], csrf: "post" }, // Gatehouse checks it where Auth.js does not
  password: { methods: ["POST"], csrf: "post" }, // the credentials route's conventions
} as const

/**
 * A row of the Password provider's own routes (`passwords.md` 5.1): CSRF on POST (403 on a JSON refusal), on with
 * the provider only, and the IP rule of each POST.
 */
const passwordRoute = (methods: readonly Method[], rules: readonly RateLimitRuleName[] = []): RoutePolicy => ({
  methods,
  csrf: "post",
  csrfStatus: 403,
  extension: true,
  requiresProviderType: "password",
  ...(rules.length > 0 ? { rateLimits: [{ methods: ["POST"] as const, rules }] } : {}),
})

/** Every action, in the reference's order. */
export const routes = {
  providers: { methods: ["GET"], csrf: "none" },
  session: {
    methods: ["GET", "POST"],
    csrf: "post",
    jsonErrors: ["POST"],
    rateLimits: [{ methods: ["POST"], rules: ["session-update"] }],
    bearer: true,
  },
  csrf: { methods: ["GET"], csrf: "none" },
  signin: {
    methods: ["GET", "POST"],
    csrf: "post",
    provider: "optional",
    rateLimits: [
      { methods: ["POST"], providerType: "email", rules: ["email-send-ip"] },
      { methods: ["POST"], providerType: "oauth", pushing: true, rules: ["oauth-par-ip"] },
      { methods: ["POST"], providerType: "oidc", pushing: true, rules: ["oauth-par-ip"] },
    ],
  },
  signout: { methods: ["GET", "POST"], csrf: "post", bearer: true },
  callback: {
    methods: ["GET", "POST"],
    csrf: "none",
    provider: "required",
    providerTypes: callbackTypes,
    rateLimits: [
      { methods: ["POST"], providerType: "credentials", rules: ["credentials-ip"] },
      { methods: ["POST"], providerType: "webauthn", rules: ["webauthn-verify"] },
      { methods: ["POST"], providerType: "password", rules: ["credentials-ip"] },
    ],
  },
  "verify-request": { methods: ["GET"], csrf: "none" },
  error: { methods: ["GET"], csrf: "none" },
  "webauthn-options": {
    methods: ["GET"],
    csrf: "none",
    provider: "required",
    providerTypes: { webauthn: { methods: ["GET"], csrf: "none" } },
    rateLimits: [{ methods: ["GET"], rules: ["webauthn-options"] }],
    // Fetched by the page's script: a refusal it can read (a configuration error still shows the error page).
    jsonRefusals: ["RateLimited", "ImpersonationRestricted"],
  },
  // Gatehouse's own passkey management (`features.passkeyRoutes`): GET the list, POST /rename and /delete.
  passkeys: {
    methods: ["GET", "POST"],
    csrf: "post",
    provider: "optional",
    jsonErrors: ["POST"],
    jsonErrorBody: "type",
    csrfStatus: 403,
    feature: "passkeyRoutes",
    bearer: true,
  },
  // Gatehouse's own session management (`features.sessionRoutes`): GET the list, POST /revoke.
  sessions: {
    methods: ["GET", "POST"],
    csrf: "post",
    provider: "optional",
    jsonErrors: ["POST"],
    jsonErrorBody: "type",
    csrfStatus: 403,
    feature: "sessionRoutes",
    bearer: true,
  },
  // Gatehouse's account routes (accounts.md §2.7): the JSON routes need `features.accountRoutes` (checked by the
  // handler, because the three mail-link routes under the same action are always on).
  account: {
    methods: ["GET", "POST"],
    csrf: "post",
    provider: "optional",
    jsonErrors: ["GET", "POST"],
    jsonErrorBody: "type",
    csrfStatus: 403,
    extension: true,
    bodyLimit: 16 * 1024,
    // The POSTs of the three mail links, by IP: each guesses at a link token.
    rateLimits: [
      {
        methods: ["POST"],
        segments: ["verify-email", "cancel-email", "confirm-delete"],
        rules: ["account-link-confirm"],
      },
    ],
  },
  // Gatehouse's admin JSON API (`features.adminRoutes`, accounts.md §3.6).
  admin: {
    methods: ["GET", "POST"],
    csrf: "post",
    provider: "optional",
    jsonErrors: ["GET", "POST"],
    jsonErrorBody: "type",
    csrfStatus: 403,
    feature: "adminRoutes",
    bodyLimit: 16 * 1024,
  },
  // RP-initiated logout 1.0: the provider sends the user back here after its end-session page. Changes nothing.
  "signout-callback": { methods: ["GET"], csrf: "none", provider: "required", extension: true },
  // Back-Channel Logout 1.0: a server-to-server POST from the provider (no cookies, so no CSRF token to check); every
  // refusal, a GET included, is answered in the spec's JSON error form.
  "backchannel-logout": {
    methods: ["POST"],
    csrf: "none",
    provider: "required",
    jsonErrors: ["GET", "POST"],
    jsonErrorBody: "oauth",
    extension: true,
    rateLimits: [{ methods: ["POST"], rules: ["backchannel"] }],
    // A logout token is a few hundred bytes: the provider has no reason to send more, an attacker every reason.
    bodyLimit: 16 * 1024,
  },
  // tokens.md T3: an access token for other services (GET, with `accessTokens`); a bearer counts. No CSRF: a GET that
  // changes nothing, and a cookie request from another site is refused by the handler (`Sec-Fetch-Site`).
  token: {
    methods: ["GET", "POST"],
    csrf: "none",
    extension: true,
    bearer: true,
    jsonErrors: ["GET", "POST"],
    jsonErrorBody: "type",
    rateLimits: [
      { methods: ["POST"], rules: ["token-exchange"] },
      { methods: ["GET"], rules: ["access-token"] },
    ],
  },
  // tokens.md T2: the native sign-in confirm page and its form (with `native`); cookies only.
  native: { methods: ["GET", "POST"], csrf: "post", extension: true },
  // tokens.md T3.3: the public signing keys (with `accessTokens`).
  jwks: { methods: ["GET"], csrf: "none", extension: true },
  // The second step of a sign-in (`twoFactor`): GET the page or the challenge as JSON, POST a code.
  "two-factor": {
    methods: ["GET", "POST"],
    csrf: "post",
    extension: true,
    configured: "twoFactor",
    rateLimits: [{ methods: ["POST"], rules: ["two-factor"] }],
    bodyLimit: 16 * 1024,
  },
  // The Password provider's flows (sign-in is `callback/password`).
  signup: passwordRoute(["GET", "POST"], ["signup-ip"]),
  "verify-email": passwordRoute(["GET", "POST"], ["password-token-ip"]),
  "resend-verification": passwordRoute(["POST"], ["password-forgot-ip"]),
  "forgot-password": passwordRoute(["GET", "POST"], ["password-forgot-ip"]),
  "reset-password": passwordRoute(["GET", "POST"], ["password-token-ip"]),
  // tokens.md T1.2: a bearer session may change or set its password (a re-issue goes out in `X-Auth-Token`).
  "change-password": { ...passwordRoute(["POST"]), bearer: true },
  "set-password": { ...passwordRoute(["POST"]), bearer: true },
} as const satisfies Record<string, RoutePolicy>

export type AuthAction = keyof typeof routes

/** The nine actions of the reference (the opt-in routes and Gatehouse's extensions are not among them). */
export const authActions = Object.freeze(
  (Object.keys(routes) as AuthAction[]).filter(
    (action) => !("feature" in routes[action]) && !("extension" in routes[action]),
  ),
) as readonly AuthAction[]

/** The actions that take a provider id as a second path segment. */
export const providerActions: ReadonlySet<AuthAction> = new Set(
  (Object.keys(routes) as AuthAction[]).filter((action) => "provider" in routes[action]),
)

/**
 * Whether `action` is one of the actions.
 *
 * @example
 * ```ts
 * isAuthAction("signin") // true
 * ```
 */
export function isAuthAction(action: string): action is AuthAction {
  return (authActions as readonly string[]).includes(action)
}

/**
 * Whether `action` has a row in the route table (the nine actions and the opt-in routes).
 *
 * @example
 * ```ts
 * isRoute("passkeys") // true
 * ```
 */
export function isRoute(action: string): action is AuthAction {
  return Object.hasOwn(routes, action)
}

/**
 * The policy of an action.
 *
 * @example
 * ```ts
 * policyOf("session").jsonErrors // ["POST"]
 * ```
 */
export function policyOf(action: AuthAction): RoutePolicy {
  return routes[action]
}

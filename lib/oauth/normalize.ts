/** Turns a merged OAuth/OIDC provider config into a validated, frozen {@link ResolvedOAuthProvider}, once per config. */
import { InvalidConfig, InvalidEndpoints, OAuthProfileParseError } from "../errors"
import type { Account, Profile, TokenSet, User } from "../models"
import type { OAuthConfig, TokenEndpointConfig } from "../providers/types"
import { customFetch } from "../symbols"
import type { LoggerInstance } from "../logger"
import { assertHttps, parseEndpoint, parseProxyUrl, stringifyParams, withIssuerPaths, withParams } from "./endpoints"
import { resolveEntra } from "./entra"
import { resolveSecurity } from "./security"
import { DEFAULT_HTTP_TIMEOUT } from "./fetch"
import { parseProxyOrigins } from "./proxy"
import type { ResolvedCheck, ResolvedOAuthProvider, ResolvedOidcLogout } from "./types"

/** Scopes asked for when the provider names none. */
export const DEFAULT_SCOPE = "openid profile email"

const KNOWN_CHECKS = new Set(["pkce", "state", "nonce", "none"])
const AUTH_METHODS = new Set([
  "client_secret_basic",
  "client_secret_post",
  "client_secret_jwt",
  "private_key_jwt",
  "none",
])
const ACCOUNT_FIELDS = [
  "access_token",
  "id_token",
  "refresh_token",
  "expires_at",
  "scope",
  "token_type",
  "session_state",
] as const

type Conform = ResolvedOAuthProvider["token"]["conform"]
type PrivateKey = ResolvedOAuthProvider["token"]["clientPrivateKey"]

/**
 * Validates and completes an OAuth/OIDC provider. Called once while the config is resolved, after the core has merged
 * the user's options over the provider's defaults and applied `AUTH_<ID>_ID/_SECRET/_ISSUER`.
 *
 * @throws InvalidEndpoints when there is no `issuer` and an endpoint is missing; InvalidConfig for a `response_type`
 *   containing `token`, a `plain` PKCE method, an unknown check or client authentication method, or a bad proxy URL.
 * @example
 * ```ts
 * const provider = normalizeOAuthProvider(
 *   { id: "op", name: "My OP", type: "oidc", issuer: "https://op.example", clientId: "id", clientSecret: "s" },
 *   { redirectProxyUrl: process.env.AUTH_REDIRECT_PROXY_URL },
 * )
 * provider.checks // ["pkce"]
 * ```
 */
export function normalizeOAuthProvider<P = Profile>(
  input: OAuthConfig<P>,
  env: {
    redirectProxyUrl?: string
    redirectProxyAllowedOrigins?: readonly string[]
    httpTimeout?: number
    /** Whether `NODE_ENV` is production: the stricter construction rules apply. */
    production?: boolean
    /** Receives construction warnings (a multi-tenant issuer open to every tenant). */
    logger?: Pick<LoggerInstance, "warn">
  },
): ResolvedOAuthProvider {
  const { id } = input
  const provider = withIssuerPaths(input)
  if (!provider.issuer) {
    for (const key of ["authorization", "token", "userinfo"] as const) {
      const endpoint = provider[key]
      const url = typeof endpoint === "string" ? endpoint : endpoint?.url
      // A custom userinfo `request` needs no URL (resolveServer accepts it too), e.g. Notion reads the token response.
      const custom = key === "userinfo" && typeof endpoint === "object" && "request" in endpoint && !!endpoint.request
      if (!url && !custom) {
        throw new InvalidEndpoints(
          `Provider "${id}" is missing both \`issuer\` and \`${key}\` endpoint config. At least one of them is required`,
        )
      }
    }
  }

  const authorization = parseEndpoint(provider.authorization, id, "authorization")
  Object.assign(authorization.params, stringifyParams(provider.authorizationParams ?? {}))
  const fromUrl = authorization.url ? new URL(authorization.url).searchParams : new URLSearchParams()
  const param = (name: string): string | undefined => authorization.params[name] ?? fromUrl.get(name) ?? undefined
  // Only an absent scope gets the default: an empty one is a provider's choice (Kakao's consent comes from its console).
  if (param("scope") === undefined) authorization.params.scope = DEFAULT_SCOPE
  const responseType = param("response_type")
  if (responseType !== undefined && responseType !== "code") {
    throw new InvalidConfig("Only response_type=code is supported", { cause: { provider: id, responseType } })
  }
  const challengeMethod = param("code_challenge_method")
  if (challengeMethod !== undefined && challengeMethod !== "S256") {
    throw new InvalidConfig("Only the S256 PKCE method is supported", { cause: { provider: id, challengeMethod } })
  }
  const formPost = param("response_mode") === "form_post"

  const configuredChecks: readonly string[] = provider.checks ?? ["pkce"]
  for (const check of configuredChecks) {
    if (!KNOWN_CHECKS.has(check)) throw new InvalidConfig("Unsupported check", { cause: { provider: id, check } })
  }
  const proxyBase = formPost ? undefined : (provider.redirectProxyUrl ?? env.redirectProxyUrl)
  const redirectProxyUrl = proxyBase ? parseProxyUrl(proxyBase, id) : undefined
  const checks: ResolvedCheck[] = ["pkce"]
  if (configuredChecks.includes("state") || redirectProxyUrl) checks.push("state")
  if (configuredChecks.includes("nonce")) checks.push("nonce")

  const client = { ...(provider.client ?? {}) }
  const method = client.token_endpoint_auth_method
  if (method !== undefined && !AUTH_METHODS.has(method)) {
    throw new InvalidConfig("Unsupported client authentication method", { cause: { provider: id, method } })
  }
  const allowInsecureUnsignedIdTokens = provider.allowInsecureUnsignedIdTokens === true
  if (client.id_token_signed_response_alg === "none" && !allowInsecureUnsignedIdTokens) {
    throw new InvalidConfig("Unsigned ID tokens need allowInsecureUnsignedIdTokens", { cause: { provider: id } })
  }

  const token = parseEndpoint(provider.token, id, "token")
  const tokenConfig: Exclude<TokenEndpointConfig, string> | undefined =
    typeof provider.token === "object" ? provider.token : undefined
  const userinfo = parseEndpoint(provider.userinfo, id, "userinfo")
  const userinfoConfig = typeof provider.userinfo === "object" ? provider.userinfo : undefined
  const userinfoRequest =
    userinfoConfig && "request" in userinfoConfig
      ? (userinfoConfig.request as ResolvedOAuthProvider["userinfo"]["request"])
      : undefined

  const allowInsecureRequests = assertHttps(provider, [
    provider.issuer,
    provider.wellKnown,
    authorization.url,
    token.url,
    userinfo.url,
    provider.logout?.endSessionEndpoint,
  ])
  const endSessionEndpoint = provider.logout?.endSessionEndpoint
  if (endSessionEndpoint !== undefined && !URL.canParse(endSessionEndpoint)) {
    throw new InvalidConfig("Invalid endpoint URL", { cause: { provider: id, endpoint: "logout.endSessionEndpoint" } })
  }

  const resolved: ResolvedOAuthProvider = {
    id,
    name: provider.name,
    type: provider.type,
    issuer: provider.issuer,
    wellKnown: provider.wellKnown,
    authorization: deepFreeze({ url: authorization.url, params: authorization.params }),
    token: deepFreeze({
      url: withParams(token),
      conform: tokenConfig && "conform" in tokenConfig ? (tokenConfig.conform as Conform) : undefined,
      clientPrivateKey:
        tokenConfig && "clientPrivateKey" in tokenConfig ? (tokenConfig.clientPrivateKey as PrivateKey) : undefined,
    }),
    userinfo: deepFreeze({ url: withParams(userinfo), request: userinfoRequest }),
    clientId: provider.clientId ?? "",
    clientSecret: provider.clientSecret,
    client: deepFreeze(client),
    checks: Object.freeze(checks),
    // The provider's own profile type is only known to the provider; the engine hands it the raw claims. A string
    // `profile` is the security preset, read by resolveSecurity.
    profile:
      typeof provider.profile === "function"
        ? (provider.profile as unknown as ResolvedOAuthProvider["profile"])
        : defaultProfile,
    account: provider.account ?? defaultAccount,
    formerAccountId:
      typeof provider.formerAccountId === "function"
        ? (provider.formerAccountId as unknown as ResolvedOAuthProvider["formerAccountId"])
        : undefined,
    style: provider.style ? deepFreeze({ ...provider.style }) : undefined,
    allowDangerousEmailAccountLinking: provider.allowDangerousEmailAccountLinking === true,
    emailAlwaysVerified: provider.emailAlwaysVerified === true,
    trustedAudiences: Object.freeze([...(provider.trustedAudiences ?? [])].map(String)),
    logout: resolveLogout(provider.logout),
    refresh: resolveRefresh(provider.refresh, id),
    redirectProxyUrl,
    redirectProxyAllowedOrigins: parseProxyOrigins(env.redirectProxyAllowedOrigins ?? []),
    idToken: provider.idToken !== false,
    formPost,
    allowInsecureUnsignedIdTokens,
    allowInsecureRequests,
    security: resolveSecurity(provider, env),
    entra: resolveEntra(provider, env),
    httpTimeout: env.httpTimeout ?? DEFAULT_HTTP_TIMEOUT,
    [customFetch]: provider[customFetch],
  }
  return Object.freeze(resolved)
}

/**
 * The profile mapping used when a provider defines none: OIDC standard claims to a user.
 *
 * @throws OAuthProfileParseError when the profile has neither `sub` nor `id` (a random id would break sign-in).
 * @example
 * ```ts
 * defaultProfile({ sub: "248289761001", name: "Jane Doe", email: "jane@example.com" })
 * // { id: "248289761001", name: "Jane Doe", email: "jane@example.com" }
 * ```
 */
export function defaultProfile(profile: Profile): User {
  const id = profile.sub ?? profile.id
  if (id === undefined || id === null || id === "") {
    throw new OAuthProfileParseError("Profile has no id", { cause: { claims: Object.keys(profile) } })
  }
  const user: User = {
    id: String(id),
    name: profile.name ?? profile.nickname ?? profile.preferred_username ?? undefined,
    email: profile.email ?? undefined,
    image: typeof profile.picture === "string" ? profile.picture : undefined,
  }
  return dropUndefined(user)
}

/**
 * The account mapping used when a provider defines none: the token fields worth storing.
 *
 * @example
 * ```ts
 * defaultAccount({ access_token: "at", token_type: "bearer", expires_in: 3600, expires_at: 1700003600 })
 * // { access_token: "at", token_type: "bearer", expires_at: 1700003600 }
 * ```
 */
export function defaultAccount(tokens: TokenSet): Partial<Account> {
  const account: Record<string, unknown> = {}
  for (const field of ACCOUNT_FIELDS) if (tokens[field] !== undefined) account[field] = tokens[field]
  return account as Partial<Account>
}

function dropUndefined<T extends Record<string, unknown>>(value: T): T {
  for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key]
  return value
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) {
      if (typeof member === "object" && !(member instanceof CryptoKey)) deepFreeze(member)
    }
    Object.freeze(value)
  }
  return value
}

/** Default of `refresh.window`, in seconds. */
export const DEFAULT_REFRESH_WINDOW = 60

function resolveRefresh(refresh: OAuthConfig["refresh"], id: string): ResolvedOAuthProvider["refresh"] {
  if (refresh === undefined || refresh === false) return undefined
  if (refresh === true) return Object.freeze({ window: DEFAULT_REFRESH_WINDOW })
  const window = typeof refresh === "object" && refresh !== null ? (refresh.window ?? DEFAULT_REFRESH_WINDOW) : NaN
  if (typeof window !== "number" || !Number.isFinite(window) || window < 0) {
    throw new InvalidConfig("Invalid refresh window", { cause: { provider: id } })
  }
  return Object.freeze({ window })
}

function resolveLogout(logout: OAuthConfig["logout"]): ResolvedOidcLogout | undefined {
  if (!logout) return undefined
  const backchannel = logout.backchannel
  return deepFreeze({
    rpInitiated: logout.rpInitiated === true,
    endSessionEndpoint: logout.endSessionEndpoint,
    idTokenHint: logout.idTokenHint !== false,
    postLogoutRedirectUri: logout.postLogoutRedirectUri,
    postLogoutRedirectParam: logout.postLogoutRedirectParam || "post_logout_redirect_uri",
    params: { ...(logout.params ?? {}) },
    backchannel: backchannel === true || (typeof backchannel === "object" && backchannel !== null),
    legacyUserWide: typeof backchannel === "object" && backchannel?.legacyUserWide === true,
  })
}

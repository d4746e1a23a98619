/**
 * Server-side `signIn`, `signOut` and `unstable_update`, framework-neutral: each checks the origin guard, runs one
 * action in-process with {@link invokeAction}, and returns what the framework layer writes. Errors are thrown as
 * `AuthError`s; only the cookies the route's error answer would carry are written first ({@link throwIfFailed}).
 */
import { InvalidProvider, MissingCSRF } from "../../errors"
import type { ResolvedConfig } from "../kernel/config/types"
import { requestOrigin } from "../kernel/context"
import { invokeAction, type ActionCall, type ActionOutcome } from "./invoke"
import { originGuardPasses } from "../kernel/origin-guard"
import { carriedBearer } from "../kernel/bearer"
import type { ConfigRuntime } from "./runtime"
import type { Session } from "../kernel/types"

/** The request the server code is handling, as the framework layer sees it. */
export interface ServerCallRequest {
  method: string
  headers: Headers
  cookies: Record<string, string>
  /** The app origin: `AUTH_URL`'s, else the request's. */
  origin: string
  /** The parsed body of the request, when the app parsed one (for a double-submit `csrfToken`). */
  body?: unknown
  /** The client IP the framework resolved (Express `req.ip`), `null` for none; unset, `rateLimit.ip` is asked. */
  clientIp?: string | null
  /** Writes `Set-Cookie` values on the answer to this request (the edge's port): those of a call that failed. */
  writeCookies?: (setCookies: string[]) => void
}

/** `signIn` options: form fields for the provider plus the call's own switches. */
export type SignInOptions =
  | FormData
  | URLSearchParams
  | ({
      /** Where to land after signing in; through the `redirect` callback (same origin only by default). */
      redirectTo?: string
      /** `false`: write the cookies and return the URL without redirecting. Default `true`. */
      redirect?: boolean
      /** `false` skips the origin guard for this call (the caller vouches for the request). Default `true`. */
      csrf?: boolean
    } & Record<string, unknown>)

export type AuthorizationParams = Record<string, string> | URLSearchParams | string | string[][]

export interface SignOutOptions {
  redirectTo?: string
  redirect?: boolean
  csrf?: boolean
  /**
   * Also end the session at the OpenID provider when it has `logout.rpInitiated` (the returned URL is then its
   * end-session endpoint). Default `true`.
   */
  federated?: boolean
}

/** What a sign-in or sign-out call answers: where to go, and the cookies to write on the way. */
export interface ServerCallResult {
  url: string
  redirect: boolean
  setCookies: string[]
}

function fieldsOf(options: SignInOptions | undefined): Record<string, unknown> {
  if (!options) return {}
  if (options instanceof URLSearchParams) return Object.fromEntries(options)
  if (typeof FormData !== "undefined" && options instanceof FormData) {
    const out: Record<string, unknown> = {}
    options.forEach((value, name) => {
      if (typeof value === "string") out[name] = value
    })
    return out
  }
  return { ...options }
}

/** The bare origin is written without a trailing slash (`http://localhost:3000`). */
function tidy(url: string, origin: string): string {
  return url === `${origin}/` ? origin : url
}

function refererTarget(headers: Headers, origin: string): string {
  const referer = headers.get("referer")
  if (!referer) return "/"
  try {
    return new URL(referer).origin === origin ? referer : "/"
  } catch {
    return "/"
  }
}

/** Throws `MissingCSRF` unless the request passes the origin guard of server-side calls (next-wave A.3 rule 2). */
export function assertGuard(config: ResolvedConfig, request: ServerCallRequest, what: string): void {
  const { cookies } = requestOrigin(config, new URL(request.origin))
  const passes = originGuardPasses(config, cookies, request.origin, {
    method: request.method,
    secFetchSite: request.headers.get("sec-fetch-site"),
    origin: request.headers.get("origin"),
    cookies: request.cookies,
    bodyCsrfToken: (request.body as { csrfToken?: unknown } | undefined)?.csrfToken,
  })
  if (!passes) {
    throw new MissingCSRF(`${what} needs a same-origin non-GET request (or { csrf: false })`, {
      cause: { method: request.method },
    })
  }
}

/** The parts of a server call every in-process action takes from the request being handled. */
export function baseCall(request: ServerCallRequest): Omit<ActionCall, "action" | "method"> {
  return {
    cookies: request.cookies,
    origin: request.origin,
    headers: request.headers,
    ...(request.clientIp !== undefined && { clientIp: request.clientIp }),
  }
}

/**
 * Throws the error of a failed call, once the cookies its answer carries are written: the deletions, and what is kept
 * on an error (a two-factor trust the failed sign-in hands back), as the route's error answer would carry them.
 *
 * @example
 * ```ts
 * throwIfFailed(request, await invokeAction(runtime, resolved, call))
 * ```
 */
export function throwIfFailed(request: Pick<ServerCallRequest, "writeCookies">, outcome: ActionOutcome): void {
  if (!outcome.error) return
  if (outcome.setCookies.length > 0) request.writeCookies?.(outcome.setCookies)
  throw outcome.error
}

/** The runtime a server call runs in (its caches) and its config under the base path the call uses. */
type Runtime = Pick<ConfigRuntime, "sessionCache">

/**
 * Signs in from server code. No provider or an unknown one answers the sign-in page URL (an unknown id logs
 * `signin-unknown-provider`); OAuth/OIDC answers the authorization URL with the check cookies; credentials and email
 * run their POST action behind the origin guard.
 *
 * @example
 * ```ts
 * const { url, setCookies } = await serverSignIn(runtime, resolved, request, "credentials", { email, password })
 * ```
 */
export async function serverSignIn(
  runtime: Runtime,
  resolved: ResolvedConfig,
  request: ServerCallRequest,
  providerId?: string,
  options?: SignInOptions,
  authorizationParams?: AuthorizationParams,
): Promise<ServerCallResult> {
  const { redirectTo, redirect, csrf, ...fields } = fieldsOf(options)
  const wantsRedirect = redirect !== false && redirect !== "false"
  const callbackUrl = typeof redirectTo === "string" ? redirectTo : refererTarget(request.headers, request.origin)
  const provider = providerId === undefined ? undefined : resolved.providerById.get(providerId)
  if (!provider) {
    if (providerId !== undefined) resolved.logger.warn("signin-unknown-provider")
    const landing = await resolved.callbacks.redirect({ url: callbackUrl, baseUrl: request.origin })
    const url = `${request.origin}${resolved.basePath}/signin?${new URLSearchParams({ callbackUrl: landing })}`
    return { url, redirect: wantsRedirect, setCookies: [] }
  }
  if (provider.type === "webauthn") {
    throw new InvalidProvider("Passkey sign-in starts in the browser", { cause: { provider: provider.id } })
  }
  const isOAuth = provider.type === "oauth" || provider.type === "oidc"
  if (!isOAuth && csrf !== false) assertGuard(resolved, request, "signIn")
  const outcome = await invokeAction(runtime, resolved, {
    ...baseCall(request),
    // Credentials and the Password provider sign in on their callback route.
    action: provider.type === "credentials" || provider.type === "password" ? "callback" : "signin",
    providerId: provider.id,
    method: "POST",
    body: { ...fields, callbackUrl },
    query: isOAuth ? Object.fromEntries(new URLSearchParams(authorizationParams)) : undefined,
  })
  throwIfFailed(request, outcome)
  return {
    url: tidy(outcome.location ?? `${request.origin}${resolved.basePath}/signin`, request.origin),
    redirect: wantsRedirect,
    setCookies: outcome.setCookies,
  }
}

/**
 * Signs out from server code, behind the origin guard: deletes the database session, clears every session cookie
 * chunk, fires `events.signOut`.
 *
 * @example
 * ```ts
 * const { url, setCookies } = await serverSignOut(runtime, resolved, request, { redirectTo: "/" })
 * ```
 */
export async function serverSignOut(
  runtime: Runtime,
  resolved: ResolvedConfig,
  request: ServerCallRequest,
  options: SignOutOptions = {},
): Promise<ServerCallResult> {
  // tokens.md T1.5: a request that carries a bearer is identified by it alone (never by the cookie), and no page on
  // another site can send an `Authorization` header without a preflight: it needs no other origin proof.
  const bearer = resolved.session.bearer ? carriedBearer(request.headers) : undefined
  if (options.csrf !== false && !bearer?.token) assertGuard(resolved, request, "signOut")
  const callbackUrl = options.redirectTo ?? refererTarget(request.headers, request.origin)
  const outcome = await invokeAction(runtime, resolved, {
    ...baseCall(request),
    action: "signout",
    method: "POST",
    body: options.federated === false ? { callbackUrl, federated: "false" } : { callbackUrl },
  })
  throwIfFailed(request, outcome)
  return {
    url: tidy(outcome.location ?? request.origin, request.origin),
    redirect: options.redirect !== false,
    setCookies: outcome.setCookies,
  }
}

/**
 * Updates the session from server code: the `jwt` callback sees `trigger: "update"` with `data` (the database
 * strategy's `session` callback sees `newSession`). Without a session it answers `null` and nothing to write.
 *
 * @example
 * ```ts
 * const { session, setCookies } = await serverUpdate(runtime, resolved, request, { user: { name: "Bea" } })
 * ```
 */
export async function serverUpdate(
  runtime: Runtime,
  resolved: ResolvedConfig,
  request: ServerCallRequest,
  data: unknown,
): Promise<{ session: Session | null; setCookies: string[] }> {
  const outcome = await invokeAction(runtime, resolved, {
    ...baseCall(request),
    action: "session",
    method: "POST",
    body: { data },
  })
  throwIfFailed(request, outcome)
  const session = (outcome.body ?? null) as Session | null
  return { session, setCookies: session ? outcome.setCookies : [] }
}

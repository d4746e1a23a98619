/** `invokeAction`: runs one core action in-process for server code (sign-in, sign-out, session update). */
import { AuthError } from "../../errors"
import type { ResolvedConfig } from "../kernel/config/types"
import { trustedCall } from "../kernel/context"
import type { AuthAction } from "../kernel/routes"
import type { AuthRequest } from "../kernel/request"
import { pipeline } from "./auth"
import type { ConfigRuntime } from "./runtime"

/** One server-side action call, made by server code after its origin guard passed (the call is trusted). */
export interface ActionCall {
  action: AuthAction
  providerId?: string
  method: "GET" | "POST"
  /** Form fields, as the browser would have posted them (`callbackUrl`, credentials, `data`, ...). */
  body?: Record<string, unknown>
  /** Query parameters (authorization parameters of an OAuth start). */
  query?: Record<string, string>
  /** The cookies of the request the server code is handling. */
  cookies: Record<string, string>
  /** The app origin (`AUTH_URL`'s, else the request's), e.g. `https://app.example`. */
  origin: string
  /** Headers of the request being handled; `authorize()` and `sendVerificationRequest()` see them. */
  headers?: Headers
  /** The client IP for the rate limits (Express `req.ip`), `null` for none; unset, `rateLimit.ip` is asked. */
  clientIp?: string | null
}

/** What an action answered, ready to be written by the framework layer (or not at all, when `error` is set). */
export interface ActionOutcome {
  status: number
  location?: string
  body?: unknown
  /**
   * `Set-Cookie` values; when `error` is set, only those its error answer carries (the deletions, and what is kept on
   * an error, such as a two-factor trust handed back), which the caller writes before throwing the error.
   */
  setCookies: string[]
  error?: AuthError
}

/**
 * Runs `call.action` through the pipeline without an HTTP round trip, as a trusted call (its CSRF rule is met: the
 * caller checked the origin guard). Errors never escape: they come back as `error` (always an `AuthError`, logged
 * once by the pipeline as the route would log it), with the cookies the route's error answer would carry.
 *
 * @example
 * ```ts
 * const out = await invokeAction(runtime, resolved, { action: "signout", method: "POST", cookies, origin })
 * if (out.error) throw out.error
 * ```
 */
export async function invokeAction(
  runtime: Pick<ConfigRuntime, "sessionCache">,
  config: ResolvedConfig,
  call: ActionCall,
): Promise<ActionOutcome> {
  const path = `${config.basePath}/${call.action}${call.providerId ? `/${encodeURIComponent(call.providerId)}` : ""}`
  const url = new URL(`${call.origin}${path}`)
  for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.append(name, value)
  const headers = new Headers(call.headers)
  const authRequest: AuthRequest = {
    method: call.method,
    url,
    action: call.action,
    providerId: call.providerId,
    headers,
    query: { ...call.query },
    body: call.body,
    cookies: { ...call.cookies },
  }
  let errorCookies: string[] = []
  try {
    const outcome = await pipeline(runtime, config, authRequest, {
      // The Request object is what user callbacks (`authorize(credentials, request)`) receive; it is never sent.
      webRequest: () => new Request(url, { method: call.method, headers }),
      ...(call.clientIp !== undefined ? { clientIp: call.clientIp } : {}),
      trusted: trustedCall(),
      errorCookies: (setCookies) => void (errorCookies = setCookies),
    })
    if (outcome instanceof Response)
      throw new AuthError("Server-side action failed", { cause: { status: outcome.status } })
    const { result, jar } = outcome
    return {
      status: result.redirect ? 302 : (result.status ?? 200),
      location: result.redirect,
      body: result.body,
      setCookies: jar.toHeaders(),
    }
  } catch (error) {
    const authError =
      error instanceof AuthError ? error : new AuthError("Server-side action failed", { cause: error as Error })
    return { status: 500, setCookies: errorCookies, error: authError }
  }
}

/** `invokeAction`: runs one core action in-process for server code (sign-in, sign-out, session update). */
import { AuthError } from "../../errors"
import type { ResolvedConfig } from "../kernel/config/types"
import type { AuthAction } from "../kernel/routes"
import { createContext } from "../kernel/context"
import type { AuthRequest } from "../kernel/request"
import { route } from "./router"
import type { SessionCache } from "../session/cache"

/** One server-side action call. It is an argument of this function only: no HTTP request can ask to be trusted. */
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
  /** The caller has checked the origin guard: the action skips its own CSRF check. */
  trustedCall: true
  sessionCache?: SessionCache
  /** The client IP for the rate limits (see `HandleOptions.clientIp`). */
  clientIp?: string | null
}

/** What an action answered, ready to be written by the framework layer (or not at all, when `error` is set). */
export interface ActionOutcome {
  status: number
  location?: string
  body?: unknown
  /** `Set-Cookie` values; empty when `error` is set. */
  setCookies: string[]
  error?: AuthError
}

/**
 * Runs `call.action` against `config` without building an HTTP round trip. Errors never escape: they come back as
 * `error` (always an `AuthError`), with no cookie to write.
 *
 * @example
 * ```ts
 * const out = await invokeAction(resolved, { action: "signout", method: "POST", cookies, origin, trustedCall: true })
 * if (out.error) throw out.error
 * ```
 */
export async function invokeAction(config: ResolvedConfig, call: ActionCall): Promise<ActionOutcome> {
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
    cookies: call.cookies,
  }
  try {
    // The Request object is what user callbacks (`authorize(credentials, request)`) receive; it is never sent.
    const ctx = await createContext(config, authRequest, new Request(url, { method: call.method, headers }))
    ctx.sessionCache = call.sessionCache
    if (call.clientIp !== undefined) ctx.clientIp = call.clientIp
    if (call.trustedCall === true) ctx.csrfVerified = true
    const result = await route(ctx)
    return {
      status: result.redirect ? 302 : (result.status ?? 200),
      location: result.redirect,
      body: result.body,
      setCookies: ctx.jar.toHeaders(),
    }
  } catch (error) {
    config.logger.error(error instanceof Error ? error : new AuthError(String(error)))
    const authError =
      error instanceof AuthError ? error : new AuthError("Server-side action failed", { cause: error as Error })
    return { status: 500, setCookies: [], error: authError }
  }
}

/**
 * The native start (tokens.md T2.3): `GET <base>/signin/<provider>?callbackUrl=<app URI>&code_challenge=…`. Checked in
 * the spec's order before any cookie, provider or store is touched; on success the request continues as a sign-in
 * whose callback URL is the continuation `<origin><base>/native?ctx=…`.
 */
import type { ResolvedConfig } from "../../kernel/config/types"
import { isRegisteredRedirect } from "../../kernel/config/native"
import type { AuthRequest } from "../../kernel/request"
import { sealContext } from "./context"

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/
const STATE = /^[\x20-\x7E]{1,512}$/

/** What a native start decided: not one (`undefined`), a refusal code, or the continuation URL. */
export type NativeStart = undefined | { refused: string } | { continuation: string }

/** Whether a request is a native start: a GET of `signin/<provider>` with a `code_challenge`, native configured. */
export function isNativeStart(config: ResolvedConfig, request: AuthRequest): boolean {
  return (
    config.native !== undefined &&
    request.method === "GET" &&
    request.action === "signin" &&
    request.providerId !== undefined &&
    request.query.code_challenge !== undefined
  )
}

/**
 * Checks a native start and builds its continuation URL.
 *
 * @example
 * ```ts
 * const start = await nativeStart(config, authRequest, origin)
 * ```
 */
export async function nativeStart(config: ResolvedConfig, request: AuthRequest, origin: string): Promise<NativeStart> {
  if (!isNativeStart(config, request)) return undefined
  const native = config.native!
  // An unknown provider stays as today (the context answers it).
  if (!config.providerById.has(request.providerId!)) return undefined
  const { callbackUrl, code_challenge, code_challenge_method, state } = request.query
  if (typeof callbackUrl !== "string" || callbackUrl === "") return { refused: "missing_callback_url" }
  if (!isRegisteredRedirect(native, callbackUrl)) return { refused: "redirect_uri_not_registered" }
  if (typeof code_challenge !== "string" || !CHALLENGE.test(code_challenge))
    return { refused: "invalid_code_challenge" }
  if (code_challenge_method !== undefined && code_challenge_method !== "S256")
    return { refused: "invalid_code_challenge" }
  if (state !== undefined && (typeof state !== "string" || !STATE.test(state))) return { refused: "invalid_state" }
  const ctx = await sealContext(config, {
    ru: callbackUrl,
    cc: code_challenge,
    ...(typeof state === "string" ? { st: state } : {}),
    p: request.providerId!,
  })
  return { continuation: `${origin}${config.basePath}/native?ctx=${encodeURIComponent(ctx)}` }
}

/**
 * A refused native start: 302 to the error page with `NativeSignInError` and its code; no cookie, never the app URI.
 *
 * @example
 * ```ts
 * return nativeRefusal(config, origin, "redirect_uri_not_registered")
 * ```
 */
export function nativeRefusal(config: ResolvedConfig, origin: string, code: string): Response {
  return new Response(null, { status: 302, headers: nativeRefusalHeaders(config, origin, code) })
}

/** The headers of a refused native start or continuation: the error page's URL, no referrer, no caching. */
export function nativeRefusalHeaders(config: ResolvedConfig, origin: string, code: string): Record<string, string> {
  const page = config.pages.error ?? `${config.basePath}/error`
  const query = new URLSearchParams({ error: "NativeSignInError", code })
  return { Location: `${origin}${page}?${query}`, "Referrer-Policy": "no-referrer", "Cache-Control": "no-store" }
}

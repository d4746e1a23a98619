/** The default callbacks: allow sign-in, same-origin redirects only, a minimal session, the token unchanged. */
import type { CallbacksOptions, JWT, Session, SessionCallbackBag, SessionCallbackParams } from "../types"

function isoDate(value: unknown): string {
  if (value instanceof Date) return value.toISOString()
  return String(value)
}

/**
 * The default `redirect` callback. `url` is resolved against `baseUrl` (an origin); the result is returned only when
 * its origin is exactly `baseUrl`'s, else `baseUrl` itself. Never throws: a malformed URL yields `baseUrl`.
 *
 * @example
 * ```ts
 * sameOriginRedirect("/dashboard", "https://app.example") // "https://app.example/dashboard"
 * sameOriginRedirect("//evil.example", "https://app.example") // "https://app.example"
 * ```
 */
export function sameOriginRedirect(url: string, baseUrl: string): string {
  // A pure function of two strings that most requests call with the same pair (the callback-url cookie and the
  // origin): the last answer is kept, saving the four URL parses below.
  const last = lastRedirect
  if (last !== undefined && last.url === url && last.baseUrl === baseUrl) return last.answer
  const answer = resolveSameOrigin(url, baseUrl)
  lastRedirect = { url, baseUrl, answer }
  return answer
}

let lastRedirect: { readonly url: string; readonly baseUrl: string; readonly answer: string } | undefined

function resolveSameOrigin(url: string, baseUrl: string): string {
  let base: URL
  try {
    base = new URL(baseUrl)
  } catch {
    return baseUrl
  }
  try {
    const target = new URL(url, base)
    if (target.origin === base.origin && target.username === "" && target.password === "") {
      // Returned as given only when it means the same thing with and without the base (so "https:evil.example",
      // relative here but absolute to a browser, never passes); otherwise the resolved form.
      return URL.canParse(url) && new URL(url).href === target.href ? url : target.href
    }
  } catch {
    // fall through
  }
  return base.origin
}

/** The callbacks used where the config gives none. */
export const defaultCallbacks: CallbacksOptions = {
  signIn: () => true,
  redirect: ({ url, baseUrl }) => sameOriginRedirect(url, baseUrl),
  session: ({ session }) => {
    const user = session.user ?? {}
    const out: Session = {
      user: { name: user.name, email: user.email, image: user.image },
      expires: isoDate(session.expires),
    }
    return out
  },
  jwt: ({ token }): JWT => token,
  authorized: ({ auth }) => Boolean(auth),
}

/**
 * Calls the `session` callback with the parameter of one strategy. The callback is declared with Auth.js's bag (both
 * halves) so Auth.js callbacks port unchanged; this is the one place that hands it the half a strategy has.
 *
 * @example
 * ```ts
 * const session = await runSessionCallback(config.callbacks, { session, token })
 * ```
 */
export function runSessionCallback(
  callbacks: Pick<CallbacksOptions, "session">,
  params: SessionCallbackParams,
): ReturnType<CallbacksOptions["session"]> {
  return callbacks.session(params as unknown as SessionCallbackBag)
}

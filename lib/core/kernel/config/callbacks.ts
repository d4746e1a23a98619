/** The default callbacks: allow sign-in, same-origin redirects only, a minimal session, the token unchanged. */
import type { CallbacksOptions, JWT, Session, SessionCallbackBag, SessionCallbackParams } from "../types"
import { sameOriginRedirect } from "../redirect"

function isoDate(value: unknown): string {
  if (value instanceof Date) return value.toISOString()
  return String(value)
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

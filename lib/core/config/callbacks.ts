/** The default callbacks: allow sign-in, same-origin redirects only, a minimal session, the token unchanged. */
import type { CallbacksOptions, JWT, Session } from "../types"
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

/**
 * How each session of the demo was signed in to (credentials, the local identity provider, an email link, a passkey),
 * so the home and sessions pages can say so. Gatehouse does not store this: the demo notes, in memory, the provider of
 * `events.signIn` against the session row created just before it. A restart forgets it (the sessions themselves stay).
 */
import type { Adapter, AdapterSession } from "../../lib/storage/adapter"
import { publicSessionId } from "../../lib/core/session/manage"
import type { Account, User } from "../../lib/core/kernel/types"

const labels: Readonly<Record<string, string>> = {
  credentials: "the demo account (username and password)",
  "local-idp": "the local identity provider (OpenID Connect)",
  email: "an email link",
  passkey: "a passkey",
}

/** A provider id in words ("the local identity provider (OpenID Connect)"); unknown ids are shown as they are. */
export function signInMethodLabel(provider: string): string {
  return labels[provider] ?? provider
}

export interface SignInMethods {
  /** Wraps an adapter's `createSession` to see each new session row; everything else is the adapter itself. */
  watch<A extends Pick<Adapter, "createSession">>(adapter: A): A
  /** For `events.signIn`: the provider of the sign-in that created the user's newest session. */
  signedIn(message: { user: User; account: Account | null }): void
  /** The provider id a session (by its public id) was signed in with, if this process saw it. */
  of(sessionId: string): string | undefined
}

/**
 * Creates the in-memory notes (at most `limit` sessions; the oldest are forgotten).
 *
 * @example
 * ```ts
 * const methods = createSignInMethods()
 * const config = { adapter: methods.watch(adapter), events: { signIn: methods.signedIn } }
 * ```
 */
export function createSignInMethods(limit = 1000): SignInMethods {
  // userId -> stored key of the session created last for that user, until its events.signIn arrives.
  const pending = new Map<string, string>()
  const methods = new Map<string, string>()
  return {
    watch: <A extends Pick<Adapter, "createSession">>(adapter: A): A => {
      const create = adapter.createSession
      if (!create) return adapter
      return {
        ...adapter,
        createSession: async (session: AdapterSession) => {
          const row = await create(session)
          pending.set(row.userId, row.sessionToken)
          return row
        },
      }
    },
    signedIn: ({ user, account }) => {
      const userId = user.id === undefined || user.id === null ? undefined : String(user.id)
      const stored = userId === undefined ? undefined : pending.get(userId)
      if (userId === undefined || stored === undefined) return
      pending.delete(userId)
      methods.set(publicSessionId(stored), account?.provider ?? "credentials")
      if (methods.size > limit) methods.delete(methods.keys().next().value!)
    },
    of: (sessionId) => methods.get(sessionId),
  }
}

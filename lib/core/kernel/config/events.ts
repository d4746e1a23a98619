/** The user's event handlers as the core calls them: every event always callable, a throwing handler only logged. */
import { EventError } from "../../../errors"
import type { LoggerInstance } from "../../../logger"
import type { EventCallbacks } from "../types"

const NAMES: readonly (keyof EventCallbacks)[] = [
  "signIn",
  "signOut",
  "createUser",
  "userDeleted",
  "updateUser",
  "linkAccount",
  "session",
  "accountRecovered",
  "securityAlert",
  "backchannelLogout",
  "refreshTokenError",
  "rateLimited",
  "accessTokenIssued",
  "signingKeyRotated",
  "nativeSignIn",
  "twoFactorEnabled",
  "twoFactorDisabled",
  "backupCodesRegenerated",
  "passwordReset",
  "passwordChanged",
  "emailVerified",
]

/**
 * What an event without a handler is wrapped as (a falsy handler is no handler). A hot path may compare with it to
 * skip building the event's message: `if (config.events.session !== noEvent) await config.events.session(...)`.
 */
export const noEvent = async (): Promise<void> => undefined

/**
 * Wraps the user's event handlers: each event is a function that awaits its handler and logs an `EventError` if it
 * throws, or {@link noEvent} when there is no handler.
 *
 * @example
 * ```ts
 * const events = wrapEvents(config.events ?? {}, logger)
 * await events.signIn({ user, account })
 * ```
 */
export function wrapEvents(events: Partial<EventCallbacks>, logger: LoggerInstance): EventCallbacks {
  const out = {} as Record<keyof EventCallbacks, (message: never) => Promise<void>>
  for (const name of NAMES) {
    const handler = events[name] as ((message: unknown) => unknown) | undefined
    out[name] = !handler
      ? noEvent
      : async (message: unknown) => {
          try {
            await handler(message)
          } catch (error) {
            logger.error(new EventError("An event handler threw", { cause: error as Error }))
          }
        }
  }
  return out as unknown as EventCallbacks
}

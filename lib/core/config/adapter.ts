/**
 * Wraps every adapter method: a debug line per call (the method name and the argument count, never the arguments:
 * positional session tokens and emails have no key a redactor could recognise), a time limit (`adapterTimeout`), and
 * any throw or timeout becomes an `AdapterError` (fail closed).
 */
import type { Adapter } from "../../adapters/types"
import { AdapterError } from "../../errors"
import type { LoggerInstance } from "../../logger"

/** Default `adapterTimeout`: how long one adapter call may take, in ms. */
export const DEFAULT_ADAPTER_TIMEOUT = 5000

/**
 * Settles like `promise`, or rejects with an `AdapterError` once `ms` have passed. The timer never keeps the process
 * alive and is cleared as soon as the call settles.
 */
function withTimeout<T>(promise: Promise<T>, ms: number, method: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new AdapterError("Adapter call timed out", { cause: { method, timeout: ms } }))
    }, ms)
    timer.unref?.()
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/**
 * Returns a frozen copy of `adapter` whose methods log `adapter_<name>`, give up after `timeout` ms and turn failures
 * into `AdapterError`. A call that times out may still finish in the database later; the request has already failed
 * closed by then (no session is issued on the strength of it).
 *
 * @example
 * ```ts
 * const safe = wrapAdapter(PostgresAdapter(pool), logger, 5000)
 * ```
 */
export function wrapAdapter(adapter: Adapter, logger: LoggerInstance, timeout = DEFAULT_ADAPTER_TIMEOUT): Adapter {
  const out: Record<string, unknown> = {}
  for (const [name, method] of Object.entries(adapter)) {
    if (typeof method !== "function") continue
    out[name] = async (...args: unknown[]) => {
      logger.debug(`adapter_${name}`, { argc: args.length })
      try {
        const call = Promise.resolve((method as (...a: unknown[]) => unknown).apply(adapter, args))
        return await withTimeout(call, timeout, name)
      } catch (error) {
        const wrapped = error instanceof AdapterError ? error : new AdapterError(error as Error)
        logger.error(wrapped)
        throw wrapped
      }
    }
  }
  return Object.freeze(out) as Adapter
}

/** Wraps every adapter method: a debug line per call, and any throw becomes an `AdapterError` (fail closed). */
import type { Adapter } from "../../adapters/types"
import { AdapterError } from "../../errors"
import type { LoggerInstance } from "../../logger"

/**
 * Returns a frozen copy of `adapter` whose methods log `adapter_<name>` and turn failures into `AdapterError`.
 *
 * @example
 * ```ts
 * const safe = wrapAdapter(PostgresAdapter(pool), logger)
 * ```
 */
export function wrapAdapter(adapter: Adapter, logger: LoggerInstance): Adapter {
  const out: Record<string, unknown> = {}
  for (const [name, method] of Object.entries(adapter)) {
    if (typeof method !== "function") continue
    out[name] = async (...args: unknown[]) => {
      logger.debug(`adapter_${name}`, { args })
      try {
        return await (method as (...a: unknown[]) => unknown).apply(adapter, args)
      } catch (error) {
        const wrapped = new AdapterError(error as Error)
        logger.error(wrapped)
        throw wrapped
      }
    }
  }
  return Object.freeze(out) as Adapter
}

/**
 * Wraps every adapter method: a debug line per call (the method name and the argument count, never the arguments:
 * positional session tokens and emails have no key a redactor could recognise), a time limit (`adapterTimeout`), and
 * any throw or timeout becomes an `AdapterError` (fail closed).
 */
import type { Adapter } from "../../../storage/adapter"
import { AdapterError } from "../../../errors"
import type { LoggerInstance } from "../../../logger"
import { SOCKET_UNREACHABLE_CODES } from "../../../network-errors"

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
      reject(new AdapterError("Adapter call timed out", { code: "adapter_timeout", cause: { method, timeout: ms } }))
    }, ms)
    timer.unref?.()
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** Driver codes of a broken uniqueness rule: PostgreSQL, SQLite (better-sqlite3, node:sqlite), Prisma, MySQL. */
const conflictCodes = new Set([
  "adapter_conflict",
  "23505",
  "SQLITE_CONSTRAINT_UNIQUE",
  "SQLITE_CONSTRAINT_PRIMARYKEY",
  "P2002",
  "ER_DUP_ENTRY",
])
/** Driver codes of an update or delete whose row does not exist. */
const notFoundCodes = new Set(["adapter_not_found", "P2025"])
/** Socket and server codes that mean the database cannot be reached now (it may be back later). */
const unavailableCodes = new Set([
  ...SOCKET_UNREACHABLE_CODES,
  "SQLITE_BUSY",
  "NOREPLICAS", // Redis: a write no replica confirmed in time (the adapter's waitForReplicas)
  "57P01", // PostgreSQL admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "53300", // too_many_connections
])
/** Messages of drivers that give a lost connection no code (pg, ioredis). */
const unavailableMessages =
  /^(Connection terminated|Connection is closed|timeout exceeded when trying to connect|Stream isn't writeable|Client has encountered a connection error|Reached the max retries per request limit)/

/** The driver's code of an error (or of the first of an AggregateError's errors that has one). */
function driverCode(error: unknown): string | undefined {
  const value = error as { code?: unknown; errors?: unknown } | null
  if (typeof value?.code === "string") return value.code
  if (Array.isArray(value?.errors)) return value.errors.map(driverCode).find((code) => code !== undefined)
  return undefined
}

/**
 * Turns what an adapter method threw into an `AdapterError` with a code that says what happened: a conflict (the row
 * exists), a missing row, an unreachable database, or `adapter_error`. The driver's code is kept in `cause.code`.
 */
export function adapterError(method: string, error: unknown): AdapterError {
  const code = driverCode(error)
  const message = error instanceof Error ? error.message : ""
  const cause = { err: error instanceof Error ? error : new Error(String(error)), method, code }
  if (code !== undefined && conflictCodes.has(code)) {
    return new AdapterError("The row already exists", { code: "adapter_conflict", cause })
  }
  if (code !== undefined && notFoundCodes.has(code)) {
    return new AdapterError("The row does not exist", { code: "adapter_not_found", cause })
  }
  // A class 08 SQLSTATE is PostgreSQL's "connection exception".
  if (
    (code !== undefined && (unavailableCodes.has(code) || /^08[0-9A-Z]{3}$/.test(code))) ||
    (error as Error | null)?.name === "MaxRetriesPerRequestError" ||
    unavailableMessages.test(message)
  ) {
    return new AdapterError("The database is unavailable", { code: "adapter_unavailable", cause })
  }
  return new AdapterError("An adapter call failed", { cause })
}

/**
 * Returns a frozen copy of `adapter` whose methods log `adapter_<name>`, give up after `timeout` ms and turn failures
 * into a coded `AdapterError` (see {@link adapterError}). A call that times out may still finish in the database later; the request has already failed
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
        const wrapped = error instanceof AdapterError ? error : adapterError(name, error)
        logger.error(wrapped)
        throw wrapped
      }
    }
  }
  return Object.freeze(out) as Adapter
}

/**
 * The logger: `error`, `warn` and `debug` levels, each overridable through `config.logger`. Metadata is redacted so
 * secrets, tokens and passwords never reach a log line.
 */
import { AuthError } from "./errors"

/** Codes of the warnings Gatehouse emits. */
export type WarningCode =
  | "debug-enabled"
  | "csrf-disabled"
  | "env-url-basepath-redundant"
  | "env-url-basepath-mismatch"
  | "experimental-webauthn"
  | "missing-secret-dev"
  | "email-maxage-long"

/** What `config.logger` may override; each level left out uses the built-in one. */
export interface LoggerInstance {
  error: (error: Error) => void
  warn: (code: WarningCode) => void
  debug: (message: string, metadata?: unknown) => void
}

const sensitiveKey =
  /^(?:.*(?:secret|password|passwd|token|verifier|cookie|authorization|assertion|code|nonce|state|credential).*)$/i

/**
 * Returns a copy of `value` with every sensitive-looking member replaced by `"[redacted]"`.
 *
 * @example
 * ```ts
 * redact({ access_token: "abc", provider: "github" }) // { access_token: "[redacted]", provider: "github" }
 * ```
 */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[…]"
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  if (value instanceof Error) return { name: value.name, message: value.message }
  if (value instanceof Date || value instanceof URL) return String(value)
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      out[k] =
        sensitiveKey.test(k) && v !== undefined && v !== null && typeof v !== "boolean"
          ? "[redacted]"
          : redact(v, depth + 1)
    }
    return out
  }
  return value
}

function write(line: string): void {
  process.stderr.write(line.endsWith("\n") ? line : `${line}\n`)
}

function defaultError(error: Error): void {
  const type = error instanceof AuthError ? error.type : error.name
  write(`[gatehouse][error] ${type}: ${error.message}`)
  const cause = error.cause as Record<string, unknown> | undefined
  if (cause && typeof cause === "object") {
    const { err, ...details } = cause
    if (err instanceof Error) write(`[gatehouse][cause]: ${err.stack ?? err.message}`)
    if (Object.keys(details).length > 0) write(`[gatehouse][details]: ${JSON.stringify(redact(details), null, 2)}`)
  }
}

/**
 * Builds the logger for a config: user overrides win; built-in debug output only when `debug` is true.
 *
 * @example
 * ```ts
 * const logger = createLogger({ debug: false, logger: { error: (e) => myLog(e) } })
 * ```
 */
export function createLogger(options: { debug?: boolean; logger?: Partial<LoggerInstance> }): LoggerInstance {
  const user = options.logger ?? {}
  const debugOn = options.debug === true
  return Object.freeze({
    error: (error: Error) => {
      try {
        ;(user.error ?? defaultError)(error)
      } catch {
        // A throwing logger must not break the request.
      }
    },
    warn: (code: WarningCode) => {
      try {
        if (user.warn) user.warn(code)
        else write(`[gatehouse][warn][${code}]`)
      } catch {
        // ignore
      }
    },
    debug: (message: string, metadata?: unknown) => {
      try {
        if (user.debug) user.debug(message, redact(metadata))
        else if (debugOn) write(`[gatehouse][debug]: ${message} ${JSON.stringify(redact(metadata), null, 2) ?? ""}`)
      } catch {
        // ignore
      }
    },
  })
}

/** Resolves the `audit` option once (accounts.md §1): the store, the sink and the retention, checked at construction. */
import { InvalidConfig, MissingAdapterMethods } from "../../../errors"
import type { Adapter } from "../../../storage/adapter"
import type { AuditOptions, AuditStore, ResolvedAudit } from "./types"

type Method = (...args: unknown[]) => unknown

/** `method` bound to `adapter`, rejecting once `ms` have passed (the timer never keeps the process alive). */
function bounded(adapter: Adapter, method: Method, ms: number): Method {
  return (...args: unknown[]) => {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("Audit store call timed out")), ms)
      timer.unref?.()
    })
    return Promise.race([Promise.resolve().then(() => method.apply(adapter, args)), timeout]).finally(() =>
      clearTimeout(timer),
    )
  }
}

const AUDIT_KEYS = new Set(["store", "sink", "retention"])
const STORE_METHODS = ["createAuditEvent", "listAuditEvents", "deleteAuditEvents"] as const

/** Default retention of audit events, in days. */
export const DEFAULT_AUDIT_RETENTION = 90

/**
 * Throws `InvalidConfig` naming the first key of `value` that is not in `known` (a typo must not disable a guard).
 *
 * @example
 * ```ts
 * assertKnownKeys("audit", options, new Set(["store", "sink", "retention"]))
 * ```
 */
export function assertKnownKeys(option: string, value: object, known: ReadonlySet<string>): void {
  const unknown = Object.keys(value).find((key) => !known.has(key))
  if (unknown !== undefined) {
    throw new InvalidConfig(`Unknown option ${option}.${unknown}`, { cause: { option: `${option}.${unknown}` } })
  }
}

/**
 * The resolved `audit` option. `store` defaults to `"adapter"` when the adapter (already wrapped with its timeout)
 * has the three audit methods, else to `false`; `"adapter"` given explicitly without them throws
 * `MissingAdapterMethods` naming them. The store's calls get the adapter timeout but not the adapter wrapper's error
 * log: a failing audit store is reported by the audit writer, at most once a minute.
 *
 * @example
 * ```ts
 * const audit = resolveAudit(config.audit, wrappedAdapter)
 * ```
 */
export function resolveAudit(
  option: AuditOptions | undefined,
  adapter: Adapter | undefined,
  timeout: number,
): ResolvedAudit {
  const input: AuditOptions = option ?? {}
  if (typeof input !== "object" || input === null) throw new InvalidConfig("The audit option must be an object")
  assertKnownKeys("audit", input, AUDIT_KEYS)
  if (input.store !== undefined && input.store !== "adapter" && input.store !== false) {
    throw new InvalidConfig('audit.store must be "adapter" or false', { cause: { option: "audit.store" } })
  }
  if (input.sink !== undefined && typeof input.sink !== "function") {
    throw new InvalidConfig("audit.sink must be a function", { cause: { option: "audit.sink" } })
  }
  const retention = input.retention ?? DEFAULT_AUDIT_RETENTION
  if (!Number.isInteger(retention) || retention < 1 || retention > 3650) {
    throw new InvalidConfig("audit.retention must be a whole number of days from 1 to 3650", {
      cause: { option: "audit.retention" },
    })
  }
  const methods = (adapter ?? {}) as Record<string, unknown>
  const missing = STORE_METHODS.filter((m) => typeof methods[m] !== "function")
  if (input.store === "adapter" && missing.length > 0) {
    throw new MissingAdapterMethods(`audit.store "adapter" needs the adapter methods: ${missing.join(", ")}`, {
      cause: { missing },
    })
  }
  const useStore = input.store !== false && missing.length === 0
  const store = useStore
    ? (Object.freeze(
        Object.fromEntries(STORE_METHODS.map((m) => [m, bounded(adapter!, methods[m] as Method, timeout)])),
      ) as unknown as AuditStore)
    : undefined
  return Object.freeze({ ...(store ? { store } : {}), ...(input.sink ? { sink: input.sink } : {}), retention })
}

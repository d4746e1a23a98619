/**
 * The breached-password check over the k-anonymity range API of Have I Been Pwned: only the first 5 hex characters
 * of the password's SHA-1 leave the server; the answer lists suffixes with counts (padding lines count 0).
 */
import { createHash } from "node:crypto"

/** Options of the range-API check (`breachCheck: true` or an object). */
export interface BreachCheckOptions {
  /** Default `https://api.pwnedpasswords.com/range/`; plain http only on loopback. */
  endpoint?: string
  /** A suffix listed with at least this count is breached (default 1). */
  minCount?: number
  /** Milliseconds before the check counts as failed (default 2000). */
  timeout?: number
  /** `true`: a failed check refuses the password (`breach_check_failed`); default `false` (fail-open). */
  failClosed?: boolean
}

export const DEFAULT_BREACH_ENDPOINT = "https://api.pwnedpasswords.com/range/"

/** What a range lookup found: listed, not listed, or no answer (timeout, network error, non-200). */
export type BreachVerdict = "breached" | "clean" | "failed"

/** Whether `endpoint` may be used: https, or plain http on a loopback host. */
export function breachEndpointAllowed(endpoint: string): boolean {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    return false
  }
  if (url.protocol === "https:") return true
  if (url.protocol !== "http:") return false
  const host = url.hostname.replace(/^\[|\]$/g, "")
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host)
}

/**
 * Looks a normalised password up in the range API.
 *
 * @example
 * ```ts
 * await pwnedLookup("password1", {}) // "breached"
 * ```
 */
export async function pwnedLookup(normalized: string, options: BreachCheckOptions): Promise<BreachVerdict> {
  const sha1 = createHash("sha1").update(normalized, "utf8").digest("hex").toUpperCase()
  const prefix = sha1.slice(0, 5)
  const suffix = sha1.slice(5)
  const minCount = options.minCount ?? 1
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), options.timeout ?? 2000)
  try {
    const response = await fetch(`${options.endpoint ?? DEFAULT_BREACH_ENDPOINT}${prefix}`, {
      headers: { "Add-Padding": "true", "User-Agent": "gatehouse-auth" },
      signal: controller.signal,
      redirect: "error",
    })
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined)
      return "failed"
    }
    const body = await response.text()
    for (const line of body.split(/\r?\n/)) {
      const [lineSuffix, count] = line.trim().split(":")
      if (lineSuffix?.toUpperCase() !== suffix) continue
      const n = Number(count)
      return Number.isFinite(n) && n >= minCount && n > 0 ? "breached" : "clean"
    }
    return "clean"
  } catch {
    return "failed"
  } finally {
    clearTimeout(timer)
  }
}

/** Warns about `AUTH_*` environment variables that look like a misspelling of one Gatehouse reads. */
import type { LoggerInstance } from "../../../logger"
import type { ProviderConfig } from "../../../providers/types"
import { providerEnvPrefix, type Env } from "./env"

const globalNames = [
  "AUTH_SECRET",
  "AUTH_SECRET_1",
  "AUTH_SECRET_2",
  "AUTH_SECRET_3",
  "AUTH_URL",
  "AUTH_TRUST_HOST",
  "AUTH_REDIRECT_PROXY_URL",
]

/** Whether the environment has already refused to be listed in this process (said once, at debug level). */
let listingRefused = false

/** Edit distance counting a swap of two neighbours as one edit (optimal string alignment). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)])
  for (let j = 0; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}

/** The variables Gatehouse reads for these providers and itself. */
export function knownEnvNames(providers: readonly ProviderConfig[]): string[] {
  const names = [...globalNames]
  for (const provider of providers) {
    if (provider === null || typeof provider !== "object" || typeof provider.id !== "string") continue
    const prefix = providerEnvPrefix(provider.id)
    names.push(`${prefix}ID`, `${prefix}SECRET`, `${prefix}ISSUER`, `${prefix}KEY`)
  }
  return names
}

/**
 * Logs an `env-variable-typo` warning for each set `AUTH_*` variable that Gatehouse does not read but that is one or
 * two edits away from one it does (`AUTH_SECERT`, `AUTH_GITHUB_SECERT`), naming both. When the runtime refuses to list
 * the environment (Deno with a scoped `--allow-env`), the check is skipped with one debug line per process.
 *
 * @example
 * ```ts
 * warnEnvTypos({ AUTH_SECERT: "…" }, [], logger) // warns: AUTH_SECERT is not read; did you mean AUTH_SECRET?
 * ```
 */
export function warnEnvTypos(
  env: Env,
  providers: readonly ProviderConfig[],
  logger: Pick<LoggerInstance, "warn" | "debug">,
) {
  let entries: Array<[string, string | undefined]>
  try {
    entries = Object.entries(env)
  } catch (error) {
    // Deno with `--allow-env` scoped to named variables cannot list the environment: no typo can be seen.
    if (!listingRefused) logger.debug("env_typo_check_skipped", { reason: (error as Error)?.name })
    listingRefused = true
    return
  }
  const known = knownEnvNames(providers)
  const knownSet = new Set(known)
  for (const [name, value] of entries) {
    if (value === undefined || knownSet.has(name) || distance(name.split("_")[0]!.toUpperCase(), "AUTH") > 1) continue
    let best: { name: string; edits: number } | undefined
    for (const candidate of known) {
      const edits = distance(name.toUpperCase(), candidate)
      if (edits <= 2 && (!best || edits < best.edits)) best = { name: candidate, edits }
    }
    if (best) {
      logger.warn("env-variable-typo", `${name} is set but Gatehouse does not read it; did you mean ${best.name}?`)
    }
  }
}

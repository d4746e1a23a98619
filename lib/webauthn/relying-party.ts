/** The relying party a request verifies against: fixed at construction (config or AUTH_URL). */
import type { ResolvedWebAuthnProvider } from "./provider"

/** The relying party of one ceremony: `id`/`name` for options, every id and origin for verification. */
export interface ExpectedRelyingParty {
  id: string
  name: string
  ids: string[]
  origins: string[]
}

/**
 * The configured relying party; outside production with neither `relyingParty` nor `AUTH_URL`, the origin the
 * request was served under (the app origin the core resolved, as for every other generated URL).
 *
 * @example
 * ```ts
 * const rp = expectedRelyingParty(ctx.origin, provider) // { id: "localhost", origins: ["http://localhost:3000"], ... }
 * ```
 */
export function expectedRelyingParty(origin: string, provider: ResolvedWebAuthnProvider): ExpectedRelyingParty {
  if (provider.rp) {
    const ids = [...provider.rp.ids]
    return { id: ids[0] as string, name: provider.rp.name, ids, origins: [...provider.rp.origins] }
  }
  const id = new URL(origin).hostname
  return { id, name: id, ids: [id], origins: [origin] }
}
